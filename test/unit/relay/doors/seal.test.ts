// The relay's seal (src/relay/doors/seal.ts, SPEC §9-§10): a provider-bound value sealed with its
// provenance opens again under the same key; altered, forged or sealed under another key it is
// refused (SealForged); a value without the mark is foreign (null); the key's rule (RELAY_SEAL_KEY,
// else BIND_SECRET, else a RelayConfigError naming RELAY_SEAL_KEY).
import { describe, expect, test } from "vitest";
import { boundPart, isSealed, seal, SealForged, unseal } from "../../../../src/relay/doors/seal.ts";
import { RelayConfigError } from "../../../../src/relay/index.ts";

const env = { RELAY_SEAL_KEY: "k".repeat(40) };
const thinking = { provider: "anthropic", model: "claude-sonnet-4-5", signature: "EqQBCkgIARAB-sig" };

describe("seal", () => {
  test("a sealed value opens to what was sealed, and reveals none of it", async () => {
    const sealed = await seal(thinking, env);
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain("anthropic");
    expect(sealed).not.toContain("EqQB");
    expect(await unseal(sealed, env)).toEqual(thinking);
    // (a fresh IV each time: two seals of one value differ)
    expect(await seal(thinking, env)).not.toBe(sealed);
  });

  test("an altered seal, a forged one and one sealed under another key are refused", async () => {
    const sealed = await seal(thinking, env);
    const last = sealed.at(-1) === "A" ? "B" : "A";
    await expect(unseal(sealed.slice(0, -1) + last, env)).rejects.toBeInstanceOf(SealForged);
    await expect(unseal("mmsp1." + btoa(JSON.stringify(thinking)).replace(/=+$/, ""), env)).rejects.toBeInstanceOf(SealForged);
    await expect(unseal("mmsp1.not base64!", env)).rejects.toBeInstanceOf(SealForged);
    await expect(unseal(sealed, { RELAY_SEAL_KEY: "o".repeat(40) })).rejects.toBeInstanceOf(SealForged);
  });

  test("a call's signature carries the call's id (a carrier's, doors/sealing.ts); one whose id is no string is refused", async () => {
    const call = { provider: "gemini", model: "gemini-3-pro-preview", signature: "CiQB-call-sig", call: "call_1" };
    expect(await unseal(await seal(call, env), env)).toEqual(call);
    await expect(unseal(await seal({ ...call, call: 7 } as never, env), env)).rejects.toBeInstanceOf(SealForged);
  });

  test("a value without the mark is foreign: null (the door's own API's provider's)", async () => {
    expect(await unseal("gAAAAABo-openai-encrypted", env)).toBeNull();
  });

  test("the key: RELAY_SEAL_KEY, else derived from BIND_SECRET (not the same key), else a RelayConfigError", async () => {
    const bind = { BIND_SECRET: "b".repeat(40) };
    const byBind = await seal(thinking, bind);
    expect(await unseal(byBind, bind)).toEqual(thinking);
    await expect(unseal(byBind, { RELAY_SEAL_KEY: "b".repeat(40) })).rejects.toBeInstanceOf(SealForged);
    const missing = seal(thinking, {});
    await expect(missing).rejects.toBeInstanceOf(RelayConfigError);
    await expect(missing).rejects.toMatchObject({ setting: "RELAY_SEAL_KEY" });
    await expect(seal(thinking, { RELAY_SEAL_KEY: "short" })).rejects.toMatchObject({ setting: "RELAY_SEAL_KEY" });
  });

  test("boundPart keeps the provider-bound members and the provenance, else undefined", () => {
    expect(boundPart({ ...thinking, summary: true })).toEqual(thinking);
    expect(boundPart({ summary: true })).toBeUndefined();
    expect(boundPart({ encrypted_content: "x" }, "openai-responses")).toEqual({ provider: "openai-responses", encrypted_content: "x" });
    expect(boundPart({ encrypted_content: "x" })).toBeUndefined();
  });
});
