// Routing: SPEC §10 "The provider's problems stay the operator's" (no address or URL of the provider in what a client sees).
//
// The one redaction of the addresses in what the relay prints (a 502's message, a provider's text, a log line): an
// upstream's address may hold `user:password@`, with a scheme (`https://admin:pw@host/v1`) or
// without one (`admin:pw@host/v1`, a variable set by hand), and an error message may quote it.

/** Any URL with a scheme, and any `name:secret@host…` without one. */
const ADDRESS = /[a-z][a-z0-9+.-]*:\/\/\S*|[^\s/@:"'<>]+:[^\s/@"'<>]*@\S*/gi;

/** `text` with every address in it replaced by `<url>` (`known`: an address to take out as it is too, whatever its form). */
export function withoutAddresses(text: string, known?: string): string {
  return (known ? text.split(known).join("<url>") : text).replace(ADDRESS, "<url>");
}

/** `withoutAddresses(text, known)` (e.g. MMSP_UPSTREAM as `known`), then cut to 200 characters. */
export function redact(text: string, known?: string): string {
  return withoutAddresses(text, known).slice(0, 200);
}

/** Whether `base` is an http(s) URL (the only upstream the relay fetches); the check names nothing. */
export function isHttpUrl(base: string): boolean {
  try {
    const { protocol } = new URL(base);
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}
