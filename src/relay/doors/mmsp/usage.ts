// The MMSP door: SPEC §10 "Principals and quotas" (GET /v1/usage lists the caller's principal's ledger,
// GET /v1/usage?all=1 with ADMIN_KEY every principal's: the books of accounting/, read through the door).
import type { Admission } from "../../admission/admit.js";
import { noAddressRefusal } from "../../admission/address.js";
import { adminRefusal, type PrincipalEnv } from "../../admission/principal.js";
import { refusal } from "../../refusal.js";
import type { Door } from "../door.js";
import { usageList } from "../../accounting/ledger.js";
import type { QuotaStore } from "../../accounting/quota.js";

/** What GET /v1/usage needs of the rest: who the caller is, and where the books are. */
export interface UsageParts<E extends object> {
  admission: Pick<Admission<E>, "principalOf">;
  quotaStore(env: E): QuotaStore;
}

/** The route of GET /v1/usage. */
export function usageRoute<E extends object>(parts: UsageParts<E>): Door<E> {
  const { admission, quotaStore } = parts;
  const answer = async (request: Request, env: E, url: URL): Promise<Response | null> => {
    if (url.pathname !== "/v1/usage") return null;
    if (request.method !== "GET") return refusal(405, "MethodNotAllowed", "GET /v1/usage lists the usage.", { allow: "GET" });
    if (url.searchParams.get("all") === "1") {
      return (await adminRefusal(request, env as PrincipalEnv)) ?? usageList(await quotaStore(env).usage(null));
    }
    const who = await admission.principalOf(request, "usage", env);
    if (who instanceof Response) return who;
    if (who.addressless) return noAddressRefusal(); // (anon:unknown is every address-less caller's: no one's own)
    return usageList(await quotaStore(env).usage(who.principal));
  };
  return { routes: ["GET /v1/usage"], answer };
}
