/**
 * The message as it streams, for chat UIs: immutable snapshots with structural sharing (SPEC §7).
 *
 * Fed every public event once enabled (O(1) each: a fragment is only queued and the snapshot marked
 * stale); `snapshot()` folds the queued fragments into a new open item and returns a new frozen
 * snapshot only when something changed, so a UI can compare by identity (`useSyncExternalStore`,
 * `memo`). Done items keep their identity; nothing that already arrived is joined again: text grows
 * by concatenation, bytes in a buffer that doubles (each snapshot holds a `subarray` view, which later
 * appends never touch), tool arguments through an immutable `PartialJsonParser` (copy on write of
 * the open objects and arrays only).
 * The strict parse that builds each `tool_call.done` is separate: a tool never runs from partial
 * arguments.
 */
import { PartialJsonParser } from "../partial/partial-json.js";
import { hasFidelity, isRecord } from "../internal/values.js";
import type { FinishReason, Kind, StreamDoneItem, UniEvent, UsageMetadata } from "../schema.js";
import { NO_TIMINGS, type ReadTimings, type StreamTimings } from "../read/timings.js";
import type { Grammar } from "./grammar.js";
import { itemType, KIND_SPECS, type KindSpec } from "./kinds.js";

/** Where a live message that starts late takes the state so far from (the checker's own). */
export type LiveSeed = Pick<Grammar, "doneItems" | "openGroup" | "message">;

/**
 * The open item of a snapshot: shaped like the `.done` it becomes, with `partial: true` (tool
 * arguments parsed best-effort, bytes so far). One member per type, so `switch (item.type)` narrows it.
 */
export type PartialItem = { [T in StreamDoneItem as T["type"]]: Readonly<T> & { readonly partial: true } }[StreamDoneItem["type"]];

/** A done item of a snapshot (it never changes again); `partial` is absent. */
export type SnapshotDoneItem = StreamDoneItem & { readonly partial?: never };

/** An item of a snapshot: a done item, or the open item (`partial: true`, always the last). */
export type SnapshotItem = SnapshotDoneItem | PartialItem;

/**
 * The message so far: an immutable value (frozen; do not mutate what it holds) that is a new object
 * exactly when something in it changed. Items that did not change keep their identity.
 */
export interface MessageSnapshot {
  /** Always `"assistant"`: a streamed answer. */
  readonly role: "assistant";
  /** The done items so far, then the open item (if any) with `partial: true`; a new array only when it changed. */
  readonly content_items: readonly SnapshotItem[];
  /** Null until the stop event. */
  readonly usage_metadata: UsageMetadata | null;
  /** Null until the stop event. */
  readonly finish_reason: FinishReason | null;
  /** The stop event's `created_at` (Unix ms), once it came. */
  readonly created_at?: number;
  /** When the parts of the answer arrived on this client, and its rate so far. */
  readonly timings: StreamTimings;
}

type Fields = Record<string, unknown>;

const EMPTY: MessageSnapshot = /*#__PURE__*/ Object.freeze({
  role: "assistant",
  content_items: Object.freeze([]) as readonly SnapshotItem[],
  usage_metadata: null,
  finish_reason: null,
  timings: NO_TIMINGS,
});

/** The open item: its fragments queued, folded into a new frozen partial item when asked. */
class OpenItem {
  private item: PartialItem;
  readonly pending: Fields[] = [];
  /** The kind: the member its fragments grow and how their pieces join (kinds.ts). */
  private readonly spec: KindSpec;
  private parser: PartialJsonParser | undefined;
  private bytes = new Uint8Array(0);
  private size = 0;

  constructor(kind: Kind, first: Fields) {
    const spec = (this.spec = KIND_SPECS[kind]);
    const { grows, joins } = spec;
    // shaped like the `.done`: the members a blank fragment carries, the first's header, nothing grown yet
    const item: Fields = { type: `${kind}.done`, partial: true, ...spec.blank(first) };
    for (const m of spec.header) item[m] = first[m];
    if (joins === "json") this.parser = new PartialJsonParser({ immutable: true });
    item[grows] = joins === "text" ? "" : joins === "json" ? {} : joins === "bytes" ? this.bytes : [];
    this.item = Object.freeze(item) as unknown as PartialItem;
  }

  /** The item with every queued fragment in: the same object when they changed nothing. */
  current(): PartialItem {
    const { pending, spec: { grows: member, joins } } = this;
    if (pending.length === 0) return this.item;
    const was = this.item as unknown as Fields;
    let value = was[member];
    let fidelity = was.fidelity;
    for (const f of pending) {
      if (hasFidelity(f.fidelity)) fidelity = f.fidelity;
      const piece = f[member];
      if (joins === "text") value = (value as string) + (piece as string);
      else if (joins === "json") this.parser!.push(piece as string);
      else if (joins === "bytes") this.append(piece as Uint8Array);
      else value = piece;
    }
    pending.length = 0;
    if (joins === "json") {
      const v = this.parser!.value; // a new object only when it changed (copy on write)
      if (isRecord(v)) value = v;
    } else if (joins === "bytes") {
      if ((value as Uint8Array).length !== this.size) value = this.bytes.subarray(0, this.size);
    }
    // (a string that grew by "" is the same value: compared by content, not identity)
    if (value === was[member] && fidelity === was.fidelity) return this.item;
    const next: Fields = { ...was, [member]: value };
    if (fidelity !== undefined) next.fidelity = fidelity;
    return (this.item = Object.freeze(next) as unknown as PartialItem);
  }

  /** Appends into the doubling buffer; bytes a view handed out covers are never written again. */
  private append(chunk: Uint8Array): void {
    const need = this.size + chunk.length;
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(need, this.bytes.length * 2, 1024));
      grown.set(this.bytes.subarray(0, this.size));
      this.bytes = grown;
    }
    this.bytes.set(chunk, this.size);
    this.size = need;
  }
}

export class LiveMessage {
  private readonly done: StreamDoneItem[] = [];
  private open: OpenItem | null = null;
  private usage: UsageMetadata | null = null;
  private finish: FinishReason | null = null;
  private createdAt: number | undefined;
  /** The last snapshot handed out, and whether an event came since it was built. */
  private last: MessageSnapshot = EMPTY;
  private stale = false;
  private readonly listeners = new Set<() => void>();
  private tapped: ((e: UniEvent) => void) | undefined;
  private tappedFor: ((e: UniEvent) => void) | undefined;
  private enabled: boolean;

  /**
   * With a `seed`, nothing is done per event until the first `snapshot()` or `subscribe()`, which
   * then starts from the seed's state (a reader that never asks pays nothing); without one, every
   * event is followed.
   */
  constructor(
    private readonly seed: (() => LiveSeed) | null = null,
    private readonly timings: ReadTimings | null = null,
  ) {
    this.enabled = seed === null;
  }

  private start(): void {
    this.enabled = true;
    const { doneItems, openGroup, message } = this.seed!();
    for (const item of doneItems) this.done.push(item as StreamDoneItem);
    if (openGroup) {
      this.open = new OpenItem(openGroup.kind, { ...openGroup.first });
      const growing = KIND_SPECS[openGroup.kind].grows;
      openGroup.pieces.forEach((piece, i) =>
        this.open!.pending.push(i === 0 && openGroup.fidelity ? { [growing]: piece, fidelity: openGroup.fidelity } : { [growing]: piece })
      );
    }
    if (message) {
      this.usage = message.usage_metadata ?? null;
      this.finish = message.finish_reason ?? null;
      this.createdAt = message.created_at;
    }
    this.stale = true;
  }

  /** Takes one public (already checked) event. */
  onEvent(event: UniEvent): void {
    this.stale = true;
    if (event.event_type === "stop") {
      this.usage = event.usage_metadata;
      this.finish = event.finish_reason;
      if (event.created_at !== undefined) this.createdAt = event.created_at;
      return;
    }
    const item = event.content_items[0] as unknown as Fields & { type: string };
    const type = itemType(item.type)!;
    if (type.delta) {
      this.open ??= new OpenItem(type.kind, item);
      this.open.pending.push(item);
    } else {
      this.done.push(item as unknown as StreamDoneItem);
      this.open = null;
    }
  }

  /** `emit`, with every event also fed here once enabled (the wrapper is made once per `emit`). */
  tap(emit: (e: UniEvent) => void): (e: UniEvent) => void {
    if (!this.enabled) return emit;
    if (this.tappedFor !== emit) {
      this.tappedFor = emit;
      this.tapped = (e) => {
        this.onEvent(e);
        emit(e);
        if (this.listeners.size !== 0) this.notify();
      };
    }
    return this.tapped!;
  }

  /** Calls each listener; one that throws is reported (asynchronously), never fails the stream. */
  private notify(): void {
    // (iterating the Set itself: a listener removed meanwhile is skipped, no copy per event)
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /** The message so far (bound: callable detached). */
  readonly snapshot = (): MessageSnapshot => {
    if (!this.enabled) this.start();
    // (the timings may change with a chunk that completed no event: compared on every call)
    if (this.stale || (this.timings !== null && this.timings.value !== this.last.timings)) this.build();
    return this.last;
  };

  /** Calls `listener` after each change until the returned function is called (bound: callable detached). */
  readonly subscribe = (listener: () => void): () => void => {
    if (typeof listener !== "function") throw new TypeError(`subscribe: listener must be a function, got ${typeof listener}`);
    if (!this.enabled) this.start();
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  /** A new snapshot from the last one, sharing what did not change; the last one when nothing did. */
  private build(): void {
    this.stale = false;
    const prev = this.last;
    const open = this.open?.current();
    const { done } = this;
    const n = done.length + (open ? 1 : 0);
    let items = prev.content_items;
    // done items never change and the open item is always last: the length and the last item tell
    if (items.length !== n || items[n - 1] !== (open ?? done[n - 1])) {
      const list: SnapshotItem[] = done.slice() as SnapshotItem[];
      if (open) list.push(open);
      items = Object.freeze(list);
    }
    const timings = this.timings === null ? NO_TIMINGS : this.timings.value;
    if (
      items === prev.content_items &&
      this.usage === prev.usage_metadata &&
      this.finish === prev.finish_reason &&
      this.createdAt === prev.created_at &&
      timings === prev.timings
    ) {
      return;
    }
    const snap: { -readonly [K in keyof MessageSnapshot]: MessageSnapshot[K] } = {
      role: "assistant",
      content_items: items,
      usage_metadata: this.usage,
      finish_reason: this.finish,
      timings,
    };
    if (this.createdAt !== undefined) snap.created_at = this.createdAt;
    this.last = Object.freeze(snap);
  }
}
