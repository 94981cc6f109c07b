// SPEC §10 "Doors" (count_tokens): how a door answers a count of tokens — the row's target's own
// counter's figure (routing/count.ts), else the relay's estimate (accounting/usage-estimate.ts, the one
// its quotas reserve) said to be one by `x-mmsp-tokens-estimated: true`. One rule for the Messages and
// Gemini doors, each writing the figure in its own API's shape.

/** The response header that says a count is the relay's estimate, not the provider's counter's. */
export const ESTIMATE_HEADER = "x-mmsp-tokens-estimated";

/** A door's count answer: `counted` (its target's counter's figure) or, when null, `estimate()`, said to be one. */
export function countAnswer(counted: number | null, estimate: () => number, shape: (tokens: number) => object): Response {
  if (counted !== null) return Response.json(shape(counted));
  return Response.json(shape(estimate()), { headers: { [ESTIMATE_HEADER]: "true" } });
}
