/**
 * What each item kind means, written once (SPEC §2–§5): the member its fragments grow and how its
 * pieces join, the members its first fragment heads the group with, how the `.done` is compared with
 * the pieces, what a fragment carrying nothing is, whether a fragment begins an item by itself
 * (assemble mode), whether it is thinking. The validator, the assembler, the group buffer and the
 * live message ask this table; adding a kind is one entry (and its schema, and its case in the fast
 * event check, decode/fast-validate.ts, which keeps a switch of its own; a differential test holds
 * it to the schema).
 */
import type { Kind } from "../schema.js";
import { jsonEqual } from "../internal/values.js";
import type { GroupBuffer } from "./group.js";

type Item = Record<string, unknown>;

/** How a group's pieces join (SPEC §4): strings concatenated, JSON text parsed to an object, bytes concatenated, one vector. */
export type Joins = "text" | "json" | "bytes" | "vector";

export interface KindSpec {
  /** The member a fragment grows (and the `.done` holds joined): `text`, `arguments`, `data`… */
  readonly grows: string;
  /** How its pieces join into the `.done`'s value (bytes: base64 text on the wire). */
  readonly joins: Joins;
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

/** text and thinking: a string that grows by concatenation. */
const textKind = (member: "text" | "thinking"): KindSpec => ({
  grows: member,
  joins: "text",
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
  text: textKind("text"),
  thinking: textKind("thinking"),
  tool_call: {
    grows: "arguments",
    joins: "json",
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

/** Whether done items are all thinking (or none at all): a response that cannot be replayed (SPEC §4). */
export function onlyThoughts(items: readonly { type: string }[]): boolean {
  for (const i of items) if (ITEM_TYPES.get(i.type)?.spec.thought !== true) return false;
  return true;
}
