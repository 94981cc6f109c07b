// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (its refusals in Google's error shape).
//
// Google's APIs answer an error as `{"error": {code, message, status}}` (`status` Google's word for
// the HTTP code: the encoder's table, geminiError). Google's shape has no member naming the
// parameter, so a refusal's message names it. The relay's other refusals (admission's 401/413/429,
// routing's 404, a provider's refusal) are re-shaped so by the door's declared error shape (door.ts),
// their status and headers kept (`Retry-After`, `x-should-retry`).
import { geminiError } from "../../../encode.js";

// (a member of the client's request the relay cannot serve, its message naming it, which `geminiAsk`
// answers as a 400 in Google's shape: doors/refused.ts, every door's one refusal)
export { refuse, refusing } from "../refused.js";

/** A refusal in Google's error shape (`status` Google's word for the code). */
export function googleError(status: number, message: string, headers?: HeadersInit): Response {
  const { body } = geminiError(Object.assign(new Error(message), { status }));
  return Response.json(body, { status, headers });
}
