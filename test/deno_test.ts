/// <reference lib="deno.ns" />
// Deno adapter: registers the shared cases with Deno.test.
import { cases } from "./cases/index.ts";

for (const [name, fn] of cases) Deno.test(name, fn);
