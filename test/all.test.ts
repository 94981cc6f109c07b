// vitest adapter (Node, workerd, Chromium) and bun adapter (bun maps "vitest" to bun:test).
import { test } from "vitest";
import { cases } from "./cases/index.ts";

for (const [name, fn] of cases) test(name, fn);
