// First contact (issue #26): `npm start` builds quietly before the sample (no build tool's file list),
// and `npm run dev` builds once on start (wrangler dev runs worker/build.mjs, and its watcher at once again).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { promisify } from "node:util";
import { ROOT } from "./helpers.mjs";

const run = promisify(execFile);

test("npm start's prestart build prints nothing (tsup --silent; tsc prints only errors)", () => {
  const { scripts } = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8"));
  const steps = scripts.prestart.split("&&").map((s) => s.trim());
  assert.ok(steps.length > 0 && steps.every((s) => (s.startsWith("tsup ") && s.includes("--silent")) || s.startsWith("tsc ")), scripts.prestart);
});

test("worker/build.mjs run again with the same inputs builds nothing (npm run dev builds once on start)", async () => {
  await run(process.execPath, ["worker/build.mjs"], { cwd: ROOT }); // up to date after this one
  const again = await run(process.execPath, ["worker/build.mjs"], { cwd: ROOT });
  assert.match(again.stdout, /worker\/generated\/assets\.ts is up to date/);
  assert.doesNotMatch(again.stdout, /samples, demo\.js/);
});
