// The kind table (src/assemble/kinds.ts) against the schema (src/schema.ts): every kind of KINDS has
// an entry with every piece, its item types are the schema's, and what the entry says of its members
// (what grows, how it joins, the header, the fast check, the blank fragment) is what the schema says.
import { expect, test } from "vitest";
import { ITEM_TYPES, itemType, KIND_SPECS, type KindSpec } from "../../src/assemble/kinds.ts";
import { DeltaItemSchema, DoneItemSchema, KINDS } from "../../src/schema.ts";
import { BYTE_KINDS, carriesBytes } from "../../src/internal/byte-kinds.ts";

type Item = Record<string, unknown>;

/** The members (type aside) of the schema's item of `type`, from the discriminated union's options. */
function schemaMembers(union: unknown, type: string): string[] {
  const options = (union as { _zod: { def: { options: { _zod: { def: { shape: Record<string, unknown> } } }[] } } })._zod.def.options;
  const shapes = options.map((o) => o._zod.def.shape).filter((s) => (s.type as { _zod: { def: { values: unknown[] } } })._zod.def.values[0] === type);
  expect(shapes, `one schema for ${type}`).toHaveLength(1);
  return Object.keys(shapes[0]!).filter((m) => m !== "type");
}

/** A piece of the growing member (on the wire's decoded form) and the value the `.done` holds, by how the kind joins. */
const SAMPLES: Record<KindSpec["joins"], { piece: unknown; joined: unknown }> = {
  text: { piece: "ab", joined: "ab" },
  json: { piece: '{"a":1}', joined: { a: 1 } },
  bytes: { piece: new Uint8Array([1, 2]), joined: new Uint8Array([1, 2]) },
  vector: { piece: [0.5, 1], joined: [0.5, 1] },
};

const PIECES: (keyof KindSpec)[] = ["grows", "joins", "valid", "header", "thought", "oneFragment", "empty", "droppable", "begins", "blank", "join", "mismatch"];
const TYPES: Record<string, string> = {
  grows: "string",
  joins: "string",
  header: "object",
  thought: "boolean",
  oneFragment: "boolean",
  droppable: "boolean",
  valid: "function",
  empty: "function",
  begins: "function",
  blank: "function",
  join: "function",
  mismatch: "function",
};

/** A fragment (or `.done`) of `kind` with every member the schema names: the growing one from SAMPLES, the others non-empty strings. */
function sample(kind: string, delta: boolean): Item {
  const type = `${kind}.${delta ? "delta" : "done"}`;
  const spec = KIND_SPECS[kind as keyof typeof KIND_SPECS];
  const item: Item = { type };
  for (const m of schemaMembers(delta ? DeltaItemSchema : DoneItemSchema, type)) {
    if (m === "fidelity") item.fidelity = { sig: "s" };
    else if (m === "mime_type") item.mime_type = "image/png";
    else item[m] = m === spec.grows ? SAMPLES[spec.joins][delta ? "piece" : "joined"] : `${m}-1`;
  }
  return item;
}

test("every kind of the schema has an entry with every piece, and nothing else has one", () => {
  expect(Object.keys(KIND_SPECS)).toEqual([...KINDS]);
  for (const kind of KINDS) {
    const spec = KIND_SPECS[kind];
    for (const piece of PIECES) expect(typeof spec[piece], `${kind}.${piece}`).toBe(TYPES[piece]);
    expect(Object.keys(spec).sort(), `${kind}: the pieces this test knows`).toEqual([...PIECES].sort());
    expect(Object.keys(SAMPLES)).toContain(spec.joins);
    expect(Array.isArray(spec.header)).toBe(true);
  }
});

test("the kinds that carry bytes are the table's bytes kinds (internal/byte-kinds.ts, which the capture and the encoders ask)", () => {
  expect([...BYTE_KINDS]).toEqual(KINDS.filter((k) => KIND_SPECS[k].joins === "bytes"));
  for (const kind of KINDS) {
    for (const type of [`${kind}.delta`, `${kind}.done`]) expect(carriesBytes(type), type).toBe(KIND_SPECS[kind].joins === "bytes");
  }
  expect([carriesBytes("inline_data"), carriesBytes(undefined), carriesBytes("text.delta")]).toEqual([false, false, false]);
});

test("the item types are K.delta and K.done of each kind, the schema's streamed types", () => {
  const types = KINDS.flatMap((k) => [`${k}.delta`, `${k}.done`]);
  expect([...ITEM_TYPES.keys()].sort()).toEqual([...types].sort());
  for (const kind of KINDS) {
    expect(ITEM_TYPES.get(`${kind}.delta`)).toMatchObject({ kind, delta: true, spec: KIND_SPECS[kind] });
    expect(ITEM_TYPES.get(`${kind}.done`)).toMatchObject({ kind, delta: false, spec: KIND_SPECS[kind] });
    expect(schemaMembers(DeltaItemSchema, `${kind}.delta`).length).toBeGreaterThan(0);
    expect(schemaMembers(DoneItemSchema, `${kind}.done`).length).toBeGreaterThan(0);
  }
  expect(itemType("image_url.done")).toBeUndefined();
  expect(itemType("text.delta")).toBe(ITEM_TYPES.get("text.delta"));
  expect(itemType("audio.delta")).toBeUndefined();
  expect(itemType("text.done")).toBe(ITEM_TYPES.get("text.done"));
});

test("what an entry says of the members is what the schema says", () => {
  for (const kind of KINDS) {
    const spec = KIND_SPECS[kind];
    const deltaMembers = schemaMembers(DeltaItemSchema, `${kind}.delta`);
    const doneMembers = schemaMembers(DoneItemSchema, `${kind}.done`);
    expect(deltaMembers, `${kind} grows a member of its fragments`).toContain(spec.grows);
    expect(doneMembers, `${kind}.done holds the joined ${spec.grows}`).toContain(spec.grows);
    for (const m of spec.header) expect(deltaMembers, `${kind}'s header ${m}`).toContain(m);
    // validate.ts finds base64 bytes in `data` before it asks the table
    if (spec.joins === "bytes") expect(spec.grows).toBe("data");
    for (const delta of [true, false]) {
      const item = sample(kind, delta);
      const schema = delta ? DeltaItemSchema : DoneItemSchema;
      expect(schema.safeParse(item).success, `the sample ${JSON.stringify(item)}`).toBe(true);
      expect(spec.valid(item, delta), `${item.type}: the fast check vouches for what the schema accepts`).toBe(true);
      for (const m of Object.keys(item)) {
        if (m === "type") continue;
        const broken = { ...item, [m]: 7 };
        expect(schema.safeParse(broken).success, `${item.type} with ${m}: 7`).toBe(false);
        expect(spec.valid(broken, delta), `${item.type} with ${m}: 7, the fast check`).toBe(false);
      }
    }
    // a fragment that grows nothing (assemble mode's fidelity carrier) is a valid, empty fragment of the kind
    if (!spec.oneFragment) {
      const blank = { type: `${kind}.delta`, ...spec.blank(sample(kind, true)) };
      expect(DeltaItemSchema.safeParse(blank).success, `${kind}'s blank fragment`).toBe(true);
      expect(spec.empty(blank), `${kind}'s blank fragment is empty`).toBe(true);
    }
    expect(spec.empty(sample(kind, true)), `${kind}'s sample fragment carries something`).toBe(false);
  }
});
