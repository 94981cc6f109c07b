// SPEC §10 "Doors: the APIs a client speaks": a member of a client's request the relay cannot serve is
// refused by name, before anything is asked, in the door's own API's error shape.
//
// One refusal for every door: a translation deep in a request's members throws `Refused` (its message
// naming the member, its `param` where the door's shape has a member for it, its status and type where
// they are not the usual 400 InvalidRequestError), and the door's entry point answers it with its own
// writer (`refusing`): OpenAI's `{error: {message, type, param, code}}`, Messages' `{type: "error",
// error}`, Google's `{error: {code, message, status}}`. Any other error is no refusal and goes on.

/** A member of the client's request the relay cannot serve: what to say, where, and with which status and type. */
export class Refused extends Error {
  constructor(
    message: string,
    /** The member refused, where the door's error shape names one (OpenAI's `param`); null: the message names it. */
    readonly param: string | null = null,
    /** The HTTP status (400 unless the refusal says otherwise: a 404 of a reference, a 500 of a misconfiguration). */
    readonly status = 400,
    /** The error's type in the package's words (`InvalidRequestError`, `NotFoundError`…), which the door's writer maps to its API's. */
    readonly type = "InvalidRequestError",
  ) {
    super(message);
  }
}

/** Refuses with `message` (naming the member, for a door whose error shape has no `param`). */
export const refuse = (message: string): never => {
  throw new Refused(message);
};

/** Refuses the member `param` with `message` (for a door whose error shape names it). */
export const refuseAt = (param: string, message: string): never => {
  throw new Refused(message, param);
};

/**
 * The first member of a client's `object` (its own keys) that is given (not null) and none of `known`,
 * for the door to refuse by name (SPEC §10: a member the relay does not know is never dropped); undefined
 * when there is none.
 */
export function unknownMember(object: Record<string, unknown>, known: ReadonlySet<string>): string | undefined {
  for (const key of Object.keys(object)) if (!known.has(key) && object[key] !== undefined && object[key] !== null) return key;
  return undefined;
}

/** What `run` gives, or its refusal written by the door's `write` (another error is thrown on). */
export function refusing<T>(run: () => T, write: (refusal: Refused) => Response): T | Response {
  try {
    return run();
  } catch (e) {
    if (e instanceof Refused) return write(e);
    throw e;
  }
}

/** `refusing` of an async translation. */
export async function refusingAsync<T>(run: () => Promise<T>, write: (refusal: Refused) => Response): Promise<T | Response> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof Refused) return write(e);
    throw e;
  }
}
