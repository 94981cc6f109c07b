/**
 * What a body was, when it was not an MMSP stream: judged from its first bytes (the head) when a
 * reader got no event out of it. One place for the diagnosis, used by every reader path.
 */

export interface BodyInfo {
  contentType?: string | null | undefined;
  format: "sse" | "ndjson" | undefined;
  totalBytes: number;
}

export interface Diagnosis {
  /** What the body was and what to do, as the detail of the error. */
  detail: string;
  /** The first bytes actually received, printable. */
  preview: string;
}

const decoder = (): TextDecoder => new TextDecoder("utf-8", { fatal: false });

/** A printable preview of the first bytes. */
export function previewHead(head: Uint8Array, max = 120): string {
  if (head.length === 0) return "<empty body>";
  const text = decoder().decode(head.subarray(0, Math.min(head.length, max * 3)));
  const cut = text.length > max ? text.slice(0, max) + "…" : text;
  return JSON.stringify(cut);
}

export function diagnoseBody(head: Uint8Array, info: BodyInfo): Diagnosis | undefined {
  const preview = previewHead(head);
  if (info.totalBytes === 0) return { detail: "the body is empty: the server sent no event at all", preview };
  return undefined;
}
