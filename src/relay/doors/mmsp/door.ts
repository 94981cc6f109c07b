// The MMSP door: SPEC §1, §8 and §10 "Doors: the APIs a client speaks" (MMSP's own routes: POST
// /v1/stream creates a stream, GET /v1/streams/<id> resumes it, DELETE cancels it; GET /v1/models
// lists the models table). MMSP is the relay's own request shape and wire: this door translates
// nothing, it admits, hands on to the stream, and names the provider and target that answered.
import type { Admission, Admitted } from "../../admission/admit.js";
import type { Door } from "../door.js";
import type { RelayNamespace } from "../../platform.js";
import { refusal } from "../../refusal.js";
import { modelsList, PROVIDER_HEADER, type RelayModels, TARGET_HEADER, targetName, targetsOf } from "../../routing/models.js";
import { streamIdOf } from "../../stream/resume.js";
import type { Streams } from "../../stream/streams.js";

/** What the MMSP door needs of the rest. */
export interface MmspDoorParts<E extends object> {
  admission: Pick<Admission<E>, "admit">;
  admitted: Admitted;
  streams: Streams<E>;
  namespace(env: E): RelayNamespace | undefined;
  /** The name of the namespace's binding (for the refusal of a relay that keeps no streams). */
  binding: string;
}

/** The MMSP door: POST /v1/stream, GET and DELETE /v1/streams/<id>. */
export function mmspDoor<E extends object>(parts: MmspDoorParts<E>): Door<E> {
  const { admission, admitted, streams, namespace, binding } = parts;

  /** POST /v1/stream: admitted, then a stream (or the stateless pipe); the answer names its provider and target. */
  async function create(request: Request, env: E, url: URL): Promise<Response> {
    if (request.method !== "POST") return refusal(405, "MethodNotAllowed", "POST an MMSP request to /v1/stream.", { allow: "POST" });
    const admittedRequest = await admission.admit(request, env);
    if (admittedRequest instanceof Response) return admittedRequest;
    const ns = namespace(env);
    const answer = ns ? await streams.create(request, admittedRequest, url, env, ns) : await streams.stateless(admittedRequest, env);
    const row = admitted.rows.get(admittedRequest);
    if (!row || !answer.ok) return answer;
    const out = new Response(answer.body, answer); // (the answer says which provider answered)
    out.headers.set(PROVIDER_HEADER, answer.headers.get(PROVIDER_HEADER) ?? targetsOf(row)[0]!.provider.name);
    out.headers.set(TARGET_HEADER, answer.headers.get(TARGET_HEADER) ?? targetName(row, 0));
    return out;
  }

  /** GET or DELETE /v1/streams/<id>: a resume or a cancel, served by the stream's object. */
  function existing(request: Request, env: E, url: URL, id: string): Promise<Response> | Response {
    if (request.method !== "GET" && request.method !== "DELETE") {
      return refusal(405, "MethodNotAllowed", "GET /v1/streams/<id> resumes a stream, DELETE cancels it.", { allow: "GET, DELETE" });
    }
    const ns = namespace(env);
    if (!ns) return refusal(404, "NotFoundError", `This relay keeps no streams (no ${binding} Durable Object binding): nothing to resume.`);
    return streams.existing(request, url, id, env, ns);
  }

  return {
    routes: ["POST /v1/stream", "GET or DELETE /v1/streams/<id>"],
    cancel: true, // (DELETE /v1/streams/<id>; its key headers, CORS headers and errors are the relay's own)
    answer: async (request, env, url) => {
      if (url.pathname === "/v1/stream") return create(request, env, url);
      const id = streamIdOf(url.pathname);
      return id === null ? null : existing(request, env, url, id);
    },
  };
}

/** GET /v1/models, with a models table: the models it serves (SPEC §1); without one, no route. */
export function modelsRoute<E extends object>(
  parts: {
    tableOf: ((env: E) => RelayModels) | undefined;
    startedAt(): number;
    /** The principal of the key the request offers (admission's `keyOf`: every door's key headers). */
    keyOf(request: Request, env: E): Promise<string | null | Response>;
  },
): Door<E> {
  const { tableOf, startedAt, keyOf } = parts;
  return {
    routes: ["GET /v1/models"],
    answer: async (request, env, url) => {
      if (url.pathname !== "/v1/models" || !tableOf) return null;
      if (request.method !== "GET") return refusal(405, "MethodNotAllowed", "GET /v1/models lists the models.", { allow: "GET" });
      const refused = await keyOf(request, env);
      return refused instanceof Response ? refused : modelsList(tableOf(env), startedAt());
    },
  };
}
