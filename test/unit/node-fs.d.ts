// The one Node API a unit test reads files with (tsconfig.json has no Node types: src/ and the
// shared cases must typecheck with web APIs only), declared as the tests use it.
declare module "node:fs" {
  export function readFileSync(path: URL, encoding: "utf8"): string;
  export function writeFileSync(path: URL, data: string): void;
}

// serve()'s Node path is given this module (its own type: the parts serve uses)
declare module "node:http" {
  export const createServer: import("../../src/testing/serve.ts").NodeHttp["createServer"];
}
