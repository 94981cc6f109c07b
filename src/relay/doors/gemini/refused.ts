// The Gemini door: SPEC §10 "Doors: the APIs a client speaks" (its refusals in Google's error shape).
//
// Google's APIs answer an error as `{"error": {code, message, status}}` (`status` Google's word for
// the HTTP code: the encoder's table, geminiError). Google's shape has no member naming the
// parameter, so a refusal's message names it. An MMSP refusal of the relay's other steps (admission's
// 401/413/429, routing's 404, a provider's refusal) is re-shaped so, its status and headers kept
// (`Retry-After`, `x-should-retry`: the SDK's retry reads them).
import { geminiError } from "../../../encode.js";
import { isRecord } from "../../../internal/values.js";

/** A member of the client's request the relay cannot serve (its message names it). */
export class GeminiRefused extends Error {}

/** Refuses: throws the refusal `message` (naming the member) that `geminiAsk` answers as a 400. */
export const refuse = (message: string): never => {
  throw new GeminiRefused(message);
};

/** A refusal in Google's error shape (`status` Google's word for the code). */
export function googleError(status: number, message: string, headers?: HeadersInit): Response {
  const { body } = geminiError(Object.assign(new Error(message), { status }));
  return Response.json(body, { status, headers });
}

/** An MMSP refusal (`{"error": {type, message, parameter?}}`) re-shaped as Google's, its status and headers kept. */
export async function googleRefusal(answer: Response): Promise<Response> {
  let body: unknown;
  try {
    body = await answer.json();
  } catch {
    body = undefined;
  }
  const e = isRecord(body) && isRecord(body.error) ? body.error : {};
  let message = typeof e.message === "string" ? e.message : `HTTP ${answer.status}`;
  if (typeof e.parameter === "string" && !message.includes(e.parameter)) message = `${e.parameter}: ${message}`;
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  headers.delete("content-type");
  return googleError(answer.status, message, headers);
}
