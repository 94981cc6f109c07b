/**
 * What each item kind means, written once (SPEC §2–§5): the types of its members (the event check's
 * fast path), the member its fragments grow and how its pieces join, the members its first fragment
 * heads the group with, how the `.done` is compared with the pieces, what a fragment carrying nothing
 * is, whether a fragment begins an item by itself (assemble mode), whether it is thinking. The event
 * check, the validator, the assembler, the group buffer and the live message ask this table; adding a
 * kind is one entry (and its schema, schema.ts, which a test holds this table to).
 */
import type { Kind } from "../schema.js";
import { isPlainObject as isPlain, jsonEqual } from "../internal/values.js";
import type { GroupBuffer } from "./group.js";

type Item = Record<string, unknown>;

/** How a group's pieces join (SPEC §4): strings concatenated, JSON text parsed to an object, bytes concatenated, one vector. */
export type Joins = "text" | "json" | "bytes" | "vector";

export interface KindSpec {
  /** The member a fragment grows (and the `.done` holds joined): `text`, `arguments`, `data`… */
  readonly grows: string;
  /** How its pieces join into the `.done`'s value (bytes: base64 text on the wire). */
  readonly joins: Joins;
  /**
   * Whether an item of this kind (a fragment when `delta`) certainly has members of its schema's types,
   * `type` aside: the event check's fast path (decode/fast-validate.ts); false means: zod decides.
   */
  valid(item: Item, delta: boolean): boolean;
  /** Members the first fragment heads the group with: non-empty there, empty or the same later (TOOL-HEADER). */
  readonly header: readonly string[];
  /** Thinking: a message of nothing else cannot be replayed to a model (`EmptyResponseError`, SPEC §4). */
  readonly thought: boolean;
  /** A group holds exactly one fragment (ONE-VECTOR). */
  readonly oneFragment: boolean;
  /** Whether a fragment carries no content and no header (it may still carry fidelity). */
  empty(fragment: Item): boolean;
  /** Whether such an empty fragment without fidelity is dropped (assemble mode; embeddings never are). */
  readonly droppable: boolean;
  /** Whether a fragment begins an item by itself, whatever item streams now (assemble mode, SPEC §5). */
  begins(fragment: Item): boolean;
  /**
   * The members of a fragment of this kind that grows nothing (to carry fidelity), after the group's
   * first; with the header put back, the members of a live snapshot's open item (live-message.ts).
   */
  blank(first: Item): Item;
  /** The joined value of the group's pieces (SPEC §4); throws when they do not join (a tool call's arguments). */
  join(group: GroupBuffer, client: string, maxDepth: number): unknown;
  /** Why `done` does not match what the group's fragments build, or undefined when it does (DONE-CONTENT). */
  mismatch(group: GroupBuffer, done: Item, client: string, maxDepth: number): string | undefined;
}

const never = (): boolean => false;

/** Whether a later fragment keeps its group's header (TOOL-HEADER, the one place): each member empty or the first's. */
export function keepsHeader(header: readonly string[], fragment: Item, first: Item): boolean {
  for (const m of header) if (fragment[m] !== "" && fragment[m] !== first[m]) return false;
  return true;
}

const fidelityOk = (f: unknown): boolean => f === undefined || f === null || isPlain(f);

function numbersOk(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== "number" || !Number.isFinite(x)) return false;
  }
  return true;
}

/**
 * text and thinking: a string that grows by concatenation. (`valid` names its member: `f[member]`
 * per event made the event check's fast path 25% slower on mixed streams.)
 */
const textKind = (member: "text" | "thinking", valid: KindSpec["valid"]): KindSpec => ({
  grows: member,
  joins: "text",
  valid,
  header: [],
  thought: member === "thinking",
  oneFragment: false,
  empty: (f) => (f[member] as string).length === 0,
  droppable: true,
  begins: never,
  blank: () => ({ [member]: "" }),
  join: (g) => g.text(),
  mismatch: (g, done) => (g.sameText(done[member]) ? undefined : `${member} differs from the joined fragments`),
});

/** inline_data and inline_thinking: bytes that grow by concatenation, with a MIME type on every fragment. */
const inlineKind = (thought: boolean, begins: (f: Item) => boolean): KindSpec => ({
  grows: "data",
  joins: "bytes",
  valid: (f) => f.data instanceof Uint8Array && typeof f.mime_type === "string" && fidelityOk(f.fidelity),
  header: [],
  thought,
  oneFragment: false,
  empty: (f) => (f.data as Uint8Array).length === 0,
  droppable: true,
  begins,
  blank: (first) => ({ data: new Uint8Array(0), mime_type: first.mime_type }),
  join: (g) => g.bytes(),
  mismatch: (g, done) =>
    done.mime_type !== g.first.mime_type
      ? "mime_type differs from the first fragment's"
      : g.sameBytes(done.data)
      ? undefined
      : "data differs from the joined fragments",
});

export const KIND_SPECS: Readonly<Record<Kind, KindSpec>> = {
  text: textKind("text", (f) => typeof f.text === "string" && fidelityOk(f.fidelity)),
  thinking: textKind("thinking", (f) => typeof f.thinking === "string" && fidelityOk(f.fidelity)),
  tool_call: {
    grows: "arguments",
    joins: "json",
    valid: (f, delta) =>
      typeof f.name === "string" && typeof f.tool_call_id === "string" &&
      (delta ? typeof f.arguments === "string" : isPlain(f.arguments)) &&
      fidelityOk(f.fidelity),
    header: ["name", "tool_call_id"],
    thought: false,
    oneFragment: false,
    empty: (f) => f.arguments === "" && f.name === "" && f.tool_call_id === "",
    droppable: true,
    // a fragment with a name opens a call; a nameless one cannot (it continues the call streaming)
    begins: (f) => f.name !== "",
    blank: () => ({ name: "", tool_call_id: "", arguments: "" }),
    join: (g, client, maxDepth) => g.toolArguments(client, maxDepth),
    mismatch: (g, done, client, maxDepth) => {
      const args = g.toolArguments(client, maxDepth);
      if (done.name !== g.first.name) return `name ${JSON.stringify(done.name)} != ${JSON.stringify(g.first.name)}`;
      if (done.tool_call_id !== g.first.tool_call_id) return "tool_call_id differs from the first fragment's";
      return jsonEqual(done.arguments, args) ? undefined : "arguments differ from the parsed fragments";
    },
  },
  // every image is an item of its own; audio arrives as many chunks of one item
  inline_data: inlineKind(false, (f) => (f.mime_type as string).toLowerCase().startsWith("image/")),
  inline_thinking: inlineKind(true, () => true),
  embedding: {
    grows: "embedding",
    joins: "vector",
    valid: (f) => numbersOk(f.embedding),
    header: [],
    thought: false,
    oneFragment: true,
    empty: (f) => (f.embedding as unknown[]).length === 0,
    droppable: false,
    begins: () => true,
    blank: () => ({}),
    join: (g) => (g.pieces.length === 1 ? g.pieces[0] : (g.pieces as number[][]).flat()),
    mismatch: (g, done) => (jsonEqual(done.embedding, g.first.embedding) ? undefined : "embedding differs from the vector of the delta"),
  },
};

/** An item type a checked event can carry: its kind, whether it is a fragment, and the kind's spec. */
export interface ItemType {
  readonly kind: Kind;
  readonly delta: boolean;
  readonly spec: KindSpec;
}

/**
 * Item type → its kind, whether it is a fragment and the kind's spec, for the twelve types of the
 * six kinds: one lookup per item instead of slicing the type string (a fresh string per event).
 */
export const ITEM_TYPES: ReadonlyMap<string, ItemType> = /*#__PURE__*/ itemTypes();

function itemTypes(): Map<string, ItemType> {
  const types = new Map<string, ItemType>();
  for (const kind of Object.keys(KIND_SPECS) as Kind[]) {
    const spec = KIND_SPECS[kind];
    types.set(`${kind}.delta`, { kind, delta: true, spec });
    types.set(`${kind}.done`, { kind, delta: false, spec });
  }
  return types;
}

let lastType: unknown;
let lastItemType: ItemType | undefined;

/**
 * `ITEM_TYPES.get(type)`, the last type found remembered: items come in runs of one type, and the
 * event check and the grammar ask about the same item one after the other (a compare, not a lookup).
 */
export function itemType(type: unknown): ItemType | undefined {
  if (type === lastType) return lastItemType;
  const t = ITEM_TYPES.get(type as string);
  if (t !== undefined) {
    lastType = type;
    lastItemType = t;
  }
  return t;
}

/** Whether done items are all thinking (or none at all): a response that cannot be replayed (SPEC §4). */
export function onlyThoughts(items: readonly { type: string }[]): boolean {
  for (const i of items) if (ITEM_TYPES.get(i.type)?.spec.thought !== true) return false;
  return true;
}
