// The one rule that cuts a provider's key out of text (src/internal/secrets.ts, SPEC §10), and a
// provider factory's refusal cut before its preview (issue #34).
import { describe, expect, test } from "vitest";
import { cutSecrets, cutSecretsIn, secretsOf } from "../../src/internal/secrets.ts";
import { openaiChat } from "../../src/providers/index.ts";
import { UpstreamError } from "../../src/errors.ts";

const KEY = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyzABCD"; // 48 characters

describe("cutSecrets", () => {
  test("a key, whole or by its first 8 characters or more, anywhere: [api key]", () => {
    expect(cutSecrets(`a ${KEY} b`, [KEY])).toBe("a [api key] b");
    expect(cutSecrets(`cut short: ${KEY.slice(0, 44)}`, [KEY])).toBe("cut short: [api key]");
    expect(cutSecrets(`masked ${KEY.slice(0, 8)}****ABCD`, [KEY])).toBe("masked [api key]****ABCD");
    expect(cutSecrets(`${KEY}${KEY.slice(0, 10)}x`, [KEY])).toBe("[api key][api key]x");
  });
  test("fewer than 8 of its characters, or a secret under 8, are left", () => {
    expect(cutSecrets(`keys start with ${KEY.slice(0, 7)}`, [KEY])).toBe(`keys start with ${KEY.slice(0, 7)}`);
    expect(cutSecrets("abc abc", ["abc"])).toBe("abc abc");
  });
  test("every string of a JSON value, its keys too; the same value when none held one", () => {
    const value = { error: { message: `bad ${KEY}`, list: [KEY.slice(0, 9)], [KEY]: 1 } };
    expect(cutSecretsIn(value, [KEY])).toEqual({ error: { message: "bad [api key]", list: ["[api key]"], "[api key]": 1 } });
    const clean = { error: { message: "fine" } };
    expect(cutSecretsIn(clean, [KEY])).toBe(clean);
  });
  test("secretsOf: the credential headers' values, a Bearer's token alone", () => {
    const request = new Request("https://x.test", { headers: { authorization: `Bearer ${KEY}`, "x-api-key": "short" } });
    expect(secretsOf(request)).toEqual([KEY]);
  });
});

describe("a provider factory's refusal (a direct user's)", () => {
  const refusing = (body: string, type = "text/plain") => openaiChat({ apiKey: KEY, fetch: async () => new Response(body, { status: 502, headers: { "content-type": type } }) });
  const refusal = async (body: string, type?: string): Promise<UpstreamError> => {
    const error = await refusing(body, type).stream({ model: "m", messages: [] }).message.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    return error as UpstreamError;
  };
  const pieces = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8));

  test("a plain-text body with the key from character 157: the 200-character preview holds none of it", async () => {
    const error = await refusal(`${"x".repeat(155)} ${KEY} more`);
    const all = error.message + JSON.stringify(error.error);
    expect(pieces.filter((p) => all.includes(p))).toEqual([]);
    expect(error.message).toBe(`HTTP 502: ${"x".repeat(155)} [api key] more`);
  });
  test("a JSON error that spells the key with escapes: cut out of what was parsed", async () => {
    const escaped = KEY.replace("p", "\\u0070");
    const error = await refusal(JSON.stringify({ error: { message: "x" } }).replace('"x"', `"bad key ${escaped}"`), "application/json");
    expect(error.message).toBe("bad key [api key]");
    expect(JSON.stringify(error.error)).not.toContain(KEY.slice(0, 8));
  });
});
