// The one member of workerd's "cloudflare:workers" module the integration tests use
// (the full types are in @cloudflare/workers-types, which this package does not need).
declare module "cloudflare:workers" {
  /** The main Worker's exports; `exports.default.fetch()` calls its fetch handler. */
  export const exports: { default: { fetch(request: Request): Promise<Response> } };
}
