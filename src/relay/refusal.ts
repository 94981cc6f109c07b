// The relay's one error shape, every room's refusals (SPEC §10: "Every refusal is `{"error": {"type",
// "message"}}` before any stream byte"). A door whose API has an error shape of its own translates it
// (doors/open-responses/).
/** A refusal in MMSP's shape, `{"error": {"type", "message"}}` (SPEC §1). */
export function refusal(status: number, type: string, message: string, headers: HeadersInit = {}): Response {
  return Response.json({ error: { type, message } }, { status, headers });
}
