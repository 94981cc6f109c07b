/** The one reading of a `Content-Type` header, for every part that looks at one. */

/** The media type of a Content-Type, lower-cased, without parameters (`"text/event-stream"`); undefined for none. */
export function mediaType(contentType: string | null | undefined): string | undefined {
  const t = contentType?.split(";")[0]?.trim().toLowerCase();
  return t || undefined;
}

/** The media types of NDJSON / JSON Lines (lower-cased): what a reader takes for NDJSON, and what a relay answers with. */
export const NDJSON_TYPES: readonly string[] = [
  "application/x-ndjson",
  "application/ndjson",
  "application/jsonl",
  "application/jsonlines",
  "application/x-jsonlines",
];

/** A media type of one JSON document: `application/json`, or any `…+json` (RFC 6839), not NDJSON. */
export const isJsonDocumentType = (type: string | undefined): boolean => type === "application/json" || type?.endsWith("+json") === true;
