// Admission: SPEC §10 "Principals and quotas" (a request's principal, its body within the bounds, the
// anonymous gate, then its claim on the principal's quota before any provider is asked).
//
// The step of the pipeline after a door: `principalOf` names who a request spends for (principal.ts:
// the relay's key, `authorize`, or anonymous by the client's address), `admit` reads the body within
// its bounds (limits.ts), translates another API's request (a door's `translate`), and for a model of
// the table checks the gate (gate.ts) and claims the quota (accounting/quota.ts). What it admitted is
// remembered per request (`Admitted`): the row, the claim, the principal; every path out that is not
// a stream taking the claim releases it (`release`).
import { parseJsonText } from "../../internal/json.js";
import { ownValue } from "../../internal/values.js";
import type { Claim, Quota, QuotaStore, RelayQuotas } from "../accounting/quota.js";
import { refusedAnswer } from "../accounting/quota.js";
import { CLAIM_HEADER, StreamCost, ticketFrom, ticketHeader } from "../accounting/stream-cost.js";
import { inputEstimate } from "../accounting/usage-estimate.js";
import type { MmspBody, RelayRow } from "../routing/models.js";
import { mmspBody } from "../routing/models.js";
import { BINDING_HEADER, DOOR_HEADER, META_HEADER, URL_HEADER } from "../stream/headers.js";
import { type ClientAddressFunction, clientAddressOf, noAddressRefusal } from "./address.js";
import { bindingOfText, credentialsOf } from "./bind.js";
import { type AnonymousOption, anonymousRate, closedRefusal } from "./gate.js";
import { type Limits, readJsonBody } from "./limits.js";
import type { KeyHeaderName } from "./bind.js";
import { anonymousPrincipal, keyHeadersOf, keyPrincipal, principalOfVerdict, type RelayPrincipal, type Resolved } from "./principal.js";

/** What a request asks of the relay, as the `authorize` hook is told (`"usage"`: GET /v1/usage). */
export type RelayAction = "create" | "resume" | "cancel" | "usage";

/**
 * What an `authorize` hook answers: a refusal to send instead, `{ principal, quota? }` to let the
 * request through spending for that principal (SPEC §10), or nothing to let it through as the
 * relay's key (or anonymous caller) it is.
 */
export type RelayVerdict = Response | RelayPrincipal | null | undefined | void;

/** What admission needs of the rest: the operator's hooks and the other rooms' readers of `env`. */
export interface AdmissionParts<E> {
  authorize?: ((request: Request, action: RelayAction, env: E) => RelayVerdict | Promise<RelayVerdict>) | undefined;
  credentials?: ((request: Request, env: E) => string | null | Promise<string | null>) | undefined;
  allowAnonymous?: AnonymousOption | undefined;
  clientAddress?: ClientAddressFunction<E> | undefined;
  trustedAddressHeader?: string | undefined;
  quotasOf(env: E): RelayQuotas;
  /** The headers a key is read from: the relay's own, then every door's (create-relay.ts composes them); default the relay's own. */
  keyHeaders?: () => readonly KeyHeaderName[];
  quotaStore(env: E): QuotaStore;
  limitsOf(env: E): Limits;
  /** The row of the table the body's model names, if any (none without a table). */
  rowOfBody(body: Uint8Array, env: E): { model: string; row: RelayRow } | undefined;
  /** The output a request of `row` reserves and asks every target for (routing/serve.ts). */
  reserveOf(config: MmspBody["config"], row: RelayRow, env: E): number;
}

/** A claim an admitted request made, `taken` once the stream that settles it at its end has it. */
export interface HeldClaim {
  claim: Claim;
  taken: boolean;
}

/** What admission remembers of each request it admitted (and of the client's request, for `release`). */
export class Admitted {
  /** The address the relay's fetch was given for a request (its third argument's `clientAddress`). */
  readonly addresses = new WeakMap<Request, string>();
  /** The row an admitted request's model has in the table (the answer names its provider). */
  readonly rows = new WeakMap<Request, RelayRow>();
  /** The claim on the principal's quota, for the admitted request and the client's. */
  readonly claims = new WeakMap<Request, HeldClaim>();
  /** The principal of an admitted request (its stream's binding). */
  readonly principals = new WeakMap<Request, Resolved>();
}

/** A JSON body's value (admit read it within the bounds; not JSON: undefined, refused by the translation). */
function parsedJson(bytes: Uint8Array): unknown {
  try {
    return parseJsonText(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

/** The anonymous quota: `quotas.anonymous`, its `requestsPerMinute` `allowAnonymous`'s rate when it sets none. */
function anonymousQuota<E extends object>(parts: AdmissionParts<E>, env: E): Quota | undefined {
  const { anonymous } = parts.quotasOf(env);
  const perMinute = anonymous?.requestsPerMinute ?? anonymousRate(parts.allowAnonymous, env) ?? undefined;
  return perMinute === undefined ? anonymous : { ...anonymous, requestsPerMinute: perMinute };
}

/** The claim of a request for `row`, made on its principal's quota, or the refusal to answer. */
async function claimOf<E extends object>(
  parts: AdmissionParts<E>,
  who: Resolved,
  model: string,
  row: RelayRow,
  body: Uint8Array,
  env: E,
  counting = false,
): Promise<Claim | Response> {
  // closed to anonymous callers unless opened (gate.ts), then the claim on the principal's quota
  if (who.anonymous && !parts.authorize && anonymousRate(parts.allowAnonymous, env) === null) return closedRefusal(model);
  // (a quota per anonymous client needs to know the client: never one shared by every caller)
  if (who.addressless && who.quota !== undefined) return noAddressRefusal();
  const asked = mmspBody(body);
  if (asked instanceof Response) return asked;
  const input = inputEstimate(asked.messages, asked.config);
  // (one claim for the request, whichever target serves it: a fallback spends from it too; the
  // provider is asked for this output, no more: `open` passes the same reserve to every target)
  // (a count of tokens, not a stream: it counts against requestsPerMinute only, reserving no tokens)
  const tokens = counting ? 0 : input + parts.reserveOf(asked.config, row, env);
  const claim: Claim = {
    id: crypto.randomUUID(),
    principal: who.principal,
    model,
    tokens,
    input,
    until: Date.now() + parts.limitsOf(env).streamMs + 60_000,
    quota: counting ? { requestsPerMinute: who.quota?.requestsPerMinute } : who.quota ?? {},
  };
  const refused = await parts.quotaStore(env).claim(claim);
  return refused ? refusedAnswer(refused) : claim;
}

/** Settles the claim of `request` (the client's or its admitted copy) as refused, unless its stream took it. */
function release<E extends object>(
  quotaStore: (env: E) => QuotaStore,
  admitted: Admitted,
  request: Request,
  env: E,
  waitUntil: ((promise: Promise<unknown>) => void) | undefined,
): void {
  const held = admitted.claims.get(request);
  if (held === undefined || held.taken) return;
  held.taken = true;
  const settling = quotaStore(env).settle(new StreamCost(ticketFrom(held.claim)).refused())
    .catch((e) => console.error("relay: a refused request's claim could not be settled", e));
  waitUntil?.(settling);
}

/** The admission step of a relay: its principals, its `admit`, the binding of a stream, the release of a claim. */
export function admission<E extends object>(parts: AdmissionParts<E>, admitted: Admitted) {
  const { authorize, credentials, clientAddress, trustedAddressHeader, quotasOf } = parts;

  /** The principal a request spends for (principal.ts), or the refusal to answer. */
  async function principalOf(request: Request, action: RelayAction, env: E): Promise<Resolved | Response> {
    const keyHeaders = parts.keyHeaders?.();
    const key = await keyPrincipal(request, env, keyHeaders);
    if (key instanceof Response) return key;
    const verdict = authorize ? await authorize(request, action, env) : null;
    if (verdict instanceof Response) return verdict;
    const named = principalOfVerdict(verdict);
    const keyIn = await keyHeadersOf(request, env, keyHeaders);
    const keyInAuthorization = keyIn.includes("authorization");
    const quotas = quotasOf(env);
    // (a principal's own quota: the hook's, else `quotas.principals`' entry, else the default)
    const quotaOf = (name: string): Quota | undefined =>
      (quotas.principals ? ownValue(quotas.principals, name) : undefined) ?? quotas.default;
    if (named) {
      return { principal: named.principal, quota: named.quota ?? quotaOf(named.principal), anonymous: false, keyInAuthorization, keyIn };
    }
    if (key !== null) return { principal: key, quota: quotaOf(key), anonymous: false, keyInAuthorization, keyIn };
    const address = clientAddressOf(request, env, { given: admitted.addresses.get(request), clientAddress, trustedAddressHeader });
    const quota = anonymousQuota(parts, env);
    return { principal: anonymousPrincipal(address), quota, anonymous: true, addressless: address === null, keyInAuthorization, keyIn };
  }

  /**
   * Admits a POST as a stream's creation (see Relay's `admit`); `translate` maps another API's body onto MMSP's;
   * `counting`: a door's count of tokens (its claim holds a place in requestsPerMinute only, for the door to release).
   */
  async function admit(
    request: Request,
    env: E,
    translate?: (body: unknown, principal: string) => unknown | Promise<unknown>,
    counting = false,
  ): Promise<Request | Response> {
    const who = await principalOf(request, "create", env);
    if (who instanceof Response) return who;
    let body = await readJsonBody(request, parts.limitsOf(env));
    if (body instanceof Response) return body;
    if (translate) {
      // another API's request (doors/open-responses/) as the MMSP body it asks for, or its refusal
      const asked = await translate(parsedJson(body), who.principal); // (a door may open sealed values after its translation: doors/sealing.ts)
      if (asked instanceof Response) return asked;
      body = new TextEncoder().encode(JSON.stringify(asked));
    }
    const found = parts.rowOfBody(body, env);
    let claim: Claim | undefined;
    if (found) {
      const made = await claimOf(parts, who, found.model, found.row, body, env, counting);
      if (made instanceof Response) return made;
      claim = made;
    }
    const headers = new Headers(request.headers);
    for (const name of ["x-relay-key", BINDING_HEADER, URL_HEADER, CLAIM_HEADER, META_HEADER, DOOR_HEADER, "content-length"]) {
      headers.delete(name);
    }
    for (const name of who.keyIn ?? (who.keyInAuthorization ? ["authorization"] : [])) headers.delete(name); // (the relay's key goes no further)
    // (for a stream's object made elsewhere, e.g. /api/chat's: it settles the claim when the stream ends)
    if (claim) headers.set(CLAIM_HEADER, ticketHeader(claim));
    const out = new Request(request.url, { method: "POST", headers, body, signal: request.signal });
    if (found) admitted.rows.set(out, found.row);
    if (claim) {
      const held = { claim, taken: false };
      admitted.claims.set(out, held);
      admitted.claims.set(request, held);
    }
    admitted.principals.set(out, who);
    return out;
  }

  /**
   * The binding of a request's credentials to stream `id` (an HMAC), or null: the credentials and,
   * for a principal of a key or of `authorize`, the principal (a stream is its principal's).
   */
  async function bindingFor(request: Request, id: string, env: E, who: Resolved): Promise<string | null> {
    return bindingOfText(await identityOf(request, env, who), id, env);
  }

  /** Who a request is, as a stream or a chat is bound to it: its credentials and, but for an anonymous one, its principal (null: neither). */
  async function identityOf(request: Request, env: E, who: Resolved): Promise<string | null> {
    const text = credentials ? await credentials(request, env) : credentialsOf(request.headers);
    return who.anonymous ? text : `${text ?? ""}\nprincipal: ${who.principal}`;
  }

  /** The principal whose key the request offers, null without keys, or the 401 (principal.ts), read from every door's key headers. */
  const keyOf = (request: Request, env: E): Promise<string | null | Response> => keyPrincipal(request, env, parts.keyHeaders?.());

  return {
    principalOf,
    admit,
    bindingFor,
    identityOf,
    release: (request: Request, env: E, waitUntil: ((promise: Promise<unknown>) => void) | undefined) =>
      release(parts.quotaStore, admitted, request, env, waitUntil),
    keyOf,
  };
}

/** A relay's admission step (what {@link admission} makes). */
export type Admission<E extends object> = ReturnType<typeof admission<E>>;
