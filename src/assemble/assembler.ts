/**
 * Assemble mode (SPEC §5): the events a producer makes from raw provider fragments in, the public
 * stream of SPEC §3 out. Input events may carry several bare `.delta` fragments each, fragments may
 * name their item with `fidelity.item_id`, and stop events may come several times with the usage
 * and finish reason in pieces. Out come one fragment per delta event, every item closed by its
 * `.done` (SPEC §4), and exactly one stop event.
 *
 * Timestamps (SPEC §5: every output event carries `created_at`): an emitted delta event carries the
 * `created_at` of the input event its fragment came in. A `.done` carries the `created_at` of the
 * input event whose fragment closed the item (the moment the item was known to be complete); the
 * `.done` of the item still open at the end, and the stop event, carry the `created_at` of the last
 * input stop event that had one (for the `.done`, failing that, of the last input event that had
 * one). Where the input has none, the time the event is emitted (Unix ms).
 */
import { EmptyResponseError, MmspError } from "../errors.js";
import { Fault } from "../internal/fault.js";
import { limitError } from "../internal/limits.js";
import { mergeUsage, noUsage } from "../internal/usage.js";
import { fidelityEqual, hasFidelity, isRecord } from "../internal/values.js";
import type { DoneItem, FinishReason, Kind, UniEvent, UniMessage, UsageMetadata } from "../schema.js";
import { GroupBuffer } from "./group.js";
import { itemType, KIND_SPECS, type KindSpec, onlyThoughts } from "./kinds.js";
import type { Grammar } from "./grammar.js";

type Item = Record<string, unknown> & { type: string };
type Emit = (event: UniEvent) => void;

/** The item streaming now. */
export interface OpenItem {
  kind: Kind;
  /** The `fidelity.item_id` its fragments carry (the first one seen), if any. */
  id: string | undefined;
  /** Its fragments that went out; undefined while none has. */
  group: GroupBuffer | undefined;
  /** The one fidelity it carried (without `item_id`). */
  fidelity: Record<string, unknown> | undefined;
}

/** Whether a fragment without fidelity carries nothing and is dropped (embedding fragments never are). */
const isDroppable = (kind: Kind, f: Item): boolean => KIND_SPECS[kind].droppable && KIND_SPECS[kind].empty(f);

/**
 * The assembling stage: input UniEvents (bare fragments) → the public stream. Throws a `Fault`
 * (exact SPEC §5 wording) or a typed error; the stream shell gives it its place in the input.
 * Expects events checked by `checkEvent(value, …, "assemble")`.
 */
export class MessageAssembler implements Grammar {
  protected current: OpenItem | null = null;
  /** The done items emitted so far (live: do not mutate). */
  readonly doneItems: DoneItem[] = [];
  private usage: UsageMetadata | null = null;
  private finish: FinishReason | null = null;
  /** The `created_at` of the last input event that had one, and of the last such stop event. */
  protected lastCreatedAt: number | undefined;
  private lastStopCreatedAt: number | undefined;
  /** Items begun (their first fragment went out), for `maxItems`. */
  private begun = 0;
  /** The stop event went out. */
  stopped = false;

  /** The usage the stop events so far carried, merged (null before any): live, do not mutate. */
  get usageSoFar(): Readonly<UsageMetadata> | null {
    return this.usage;
  }
  message: UniMessage | undefined;
  /** Assemble mode streams no group of its own for the live message (it follows the output). */
  readonly openGroup = null;
  answered = false;
  /** The characters of the closed items. */
  private closed = 0;
  /** The largest `.done` a group may grow to (group.ts); a provider's assembler bounds it by `maxEventBytes`. */
  protected maxDone = Infinity;

  constructor(
    private readonly client: string,
    /** Bounds for hostile input (see `LimitOptions`): items in the message, nesting of fidelity and arguments. */
    protected readonly limits: { maxItems: number; maxDepth: number },
  ) {}

  get started(): boolean {
    return this.current?.group !== undefined || this.doneItems.length > 0 || this.stopped;
  }

  characters(): number {
    return this.closed + (this.current?.group?.characters ?? 0);
  }

  /** Assemble mode has no short way: its input is checked as a whole event first (validate.ts). */
  readonly takeFragment = (): boolean => false;

  /**
   * One input event. Each fragment's outputs go out only once the fragment is fully handled, so an
   * error discards what that fragment would have emitted (even the `.done` of the item it closed),
   * while everything emitted before it stays delivered.
   */
  push(event: UniEvent, emit: Emit): void {
    if (event.event_type === "delta" && (event.usage_metadata != null || event.finish_reason != null)) {
      throw new Fault("DELTA-SHAPE", "a delta event carries usage_metadata or finish_reason", true);
    }
    const createdAt = event.created_at;
    if (createdAt !== undefined) this.lastCreatedAt = createdAt;
    const out: UniEvent[] = [];
    for (const item of event.content_items as unknown as Item[]) {
      this.fragment(item, createdAt, out);
      for (const e of out) this.send(e, emit);
      out.length = 0;
    }
    if (event.event_type === "stop") {
      if (createdAt !== undefined) this.lastStopCreatedAt = createdAt;
      this.addUsage(event.usage_metadata);
      if (event.finish_reason != null) this.finish = event.finish_reason;
    }
  }

  /** The input ended: the open item closes, then the stop event (or the error in its place). */
  end(emit: Emit): void {
    if (this.stopped) return;
    const at = this.lastStopCreatedAt ?? this.lastCreatedAt;
    const done = this.close(at);
    if (done) this.send(done, emit);
    if (this.usage === null) throw new MmspError("Streaming response ended without usage_metadata", { rule: "STOP-SHAPE" });
    if (this.finish === null) throw new MmspError("Streaming response ended without finish_reason", { rule: "STOP-SHAPE" });
    if (onlyThoughts(this.doneItems)) {
      throw new EmptyResponseError({ client: this.client, finishReason: this.finish, usageMetadata: this.usage });
    }
    const stop: UniEvent = {
      role: "assistant",
      event_type: "stop",
      content_items: [],
      usage_metadata: this.usage,
      finish_reason: this.finish,
    };
    stop.created_at = this.lastStopCreatedAt ?? Date.now();
    const message: UniMessage = {
      role: "assistant",
      content_items: this.doneItems,
      usage_metadata: this.usage,
      finish_reason: this.finish,
    };
    message.created_at = stop.created_at;
    this.stopped = true;
    this.message = message;
    emit(stop);
  }

  private send(event: UniEvent, emit: Emit): void {
    const item = event.content_items[0]!;
    if (!itemType(item.type)!.delta) this.doneItems.push(item as DoneItem);
    emit(event);
  }

  private addUsage(usage: Partial<UsageMetadata> | null): void {
    if (usage == null) return;
    mergeUsage(this.usage ??= noUsage(), usage);
  }

  /** Handles one input fragment; its outputs go to `out`. */
  private fragment(input: Item, createdAt: number | undefined, out: UniEvent[]): void {
    const type = input.type;
    const known = itemType(type);
    if (!known?.delta) throw new Fault("KIND", `a client yields deltas, not ${type}`, true);
    let kind: Kind = known.kind;

    // copies without the members taken out, not `delete` (which turns each copy into a slow dictionary object)
    const { fidelity: given, ...rest } = input;
    let fields = rest as Item;
    let fidelity: Record<string, unknown> | undefined;
    let id: string | undefined;
    if (isRecord(given)) {
      const { item_id: itemId, ...others } = given;
      if (typeof itemId === "string" && itemId !== "") id = itemId;
      if (hasFidelity(others)) fidelity = others;
    }

    let item = this.current;
    if (
      item?.group !== undefined &&
      id !== undefined &&
      id === item.id &&
      fidelity !== undefined &&
      // (an empty vector is no content here, though an embedding fragment is never dropped for it)
      KIND_SPECS[kind].empty(fields)
    ) {
      // fidelity sent alone under the item's id is that item's, whatever kind carries it; an
      // embedding item is one vector whose fidelity came with it: the fragment makes nothing
      if (KIND_SPECS[item.kind].oneFragment) return;
      kind = item.kind;
      fields = { type: `${kind}.delta`, ...KIND_SPECS[kind].blank(item.group.first) }; // a fragment that grows nothing
    } else if (
      item === null ||
      kind !== item.kind ||
      KIND_SPECS[kind].begins(fields) ||
      // a fragment of a headed kind without its header (a nameless tool-call fragment) cannot begin
      // an item: it continues the call whatever its id (gateways put their own ids on later chunks)
      (id !== undefined && item.id !== undefined && id !== item.id && KIND_SPECS[kind].header.length === 0)
    ) {
      const done = this.close(createdAt);
      if (done) out.push(done);
      item = this.current = { kind, id: undefined, group: undefined, fidelity: undefined };
    }
    item.id ??= id;

    const name = item.id !== undefined ? `item ${item.id}` : "an item";
    if (fidelity !== undefined) {
      if (item.fidelity === undefined) item.fidelity = fidelity;
      else if (fidelityEqual(item.fidelity, fidelity)) fidelity = undefined; // goes out once
      else throw new Fault("FIDELITY-ONCE", `${name} carried two different fidelity payloads`, true);
    }

    // Only the first fragment of a call carries its header; on the others it is blanked.
    const { header } = KIND_SPECS[kind];
    if (header.length > 0 && item.group !== undefined) {
      fields = { ...fields };
      for (const m of header) fields[m] = "";
    }
    if (fidelity === undefined && isDroppable(kind, fields)) return; // carries nothing

    if (item.group === undefined) {
      if (header.some((m) => fields[m] === "")) {
        throw new Fault("TOOL-HEADER", `the first ${kind}.delta of ${name} must carry the ${header.join(" and the ")}`, true);
      }
      if (this.begun >= this.limits.maxItems) throw limitError("maxItems", this.limits.maxItems, "the message's item count");
      this.begun++;
      item.group = new GroupBuffer(kind, fields, this.maxDone);
      if (!KIND_SPECS[kind].thought) this.answered = true; // (the timings' first content)
    } else item.group.add(fields);

    out.push(this.event(fidelity !== undefined ? { ...fields, fidelity } : fields, createdAt));
  }

  /** Closes the item streaming now: its `.done` (SPEC §4), or nothing when none of it went out. */
  private close(createdAt: number | undefined): UniEvent | undefined {
    const item = this.current;
    this.current = null;
    const g = item?.group;
    if (!item || !g) return undefined;
    this.closed += g.characters;
    const spec = KIND_SPECS[item.kind];
    const value = this.joined(spec, g);
    const done: Item = { ...g.first, type: `${item.kind}.done`, [spec.grows]: value };
    if (item.fidelity !== undefined) done.fidelity = item.fidelity;
    return this.event(done, createdAt);
  }

  /** The grown member of a closing group's `.done` (joined text, parsed arguments, bytes…). */
  protected joined(spec: KindSpec, g: GroupBuffer): unknown {
    return spec.join(g, this.client, this.limits.maxDepth);
  }

  protected event(item: Item, createdAt: number | undefined): UniEvent {
    return {
      role: "assistant",
      event_type: "delta",
      content_items: [item],
      usage_metadata: null,
      finish_reason: null,
      created_at: createdAt ?? Date.now(),
    } as unknown as UniEvent;
  }
}
