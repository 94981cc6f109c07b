/**
 * What a provider's 2xx body that made no item was, when it was no stream of that provider (SPEC §9):
 * one JSON error document is the provider's refusal (`UpstreamError`, the response's status: 200);
 * a body the MMSP reader's diagnosis names (empty, an HTML page, a JSON document, MMSP's stream or
 * another provider's) is `NOT-A-STREAM`. Loaded by the provider core only when such a body ends, so a
 * stream that reads never pays for the diagnosis (~4 KB gzip).
 */
import { bodyExplainer } from "../diagnose.js";
import { refusalError } from "../errors.js";
import type { BodyContext } from "../framing/framer.js";
import { HEAD_BYTES } from "../framing/head.js";
import { Fault, locate } from "../internal/fault.js";
import { isRecord } from "../internal/values.js";
import { providerError } from "./refusal.js";
import type { ProviderSpec } from "./spec.js";
import { parseJsonText } from "../internal/json.js";

/**
 * The error `body` is, or undefined when it looks like the provider's own stream (its reader's error stands).
 * @param body the body's first bytes: all of it (up to the core's bound) when it held no record, else at least its head
 * @param totalBytes how many bytes the body had
 * @param records how many records (SSE messages) it held
 */
export function noStreamError(
  body: Uint8Array,
  totalBytes: number,
  records: number,
  context: BodyContext,
  spec: ProviderSpec,
  client: string,
): unknown {
  if (records === 0) {
    const text = new TextDecoder().decode(body);
    let value: unknown;
    try {
      value = parseJsonText(text);
    } catch {
      // not one JSON document
    }
    if (isRecord(value) && isRecord(value.error)) {
      const status = context.status ?? null;
      return providerError(refusalError(status ?? 200, text, client), status, spec, client);
    }
  }
  const d = bodyExplainer(context, "sse", spec.name)(body.subarray(0, HEAD_BYTES), totalBytes);
  return d && locate(new Fault("NOT-A-STREAM", d.detail), client, { eventIndex: 0, byteOffset: 0, preview: d.preview });
}
