/**
 * The message as it streams: done items plus the open item's value so far, for chat UIs.
 *
 * Fed every public event (O(1) each: a fragment is only queued); `snapshot()` folds the queued
 * fragments into the open item and returns the same live object every time, so a UI can read it
 * after every event at total cost linear in the stream: text grows by concatenation, bytes by a
 * buffer that doubles, and tool arguments through `PartialJsonParser` (updated in place, never
 * re-parsed). The strict parse that builds each `tool_call.done` is separate: a tool never runs
 * from partial arguments.
 */
import { PartialJsonParser } from "../partial/partial-json.js";
import { hasFidelity } from "../internal/values.js";
import type { DoneItem, FinishReason, Kind, UniEvent, UniMessage, UsageMetadata } from "../schema.js";
import { GROWING, type GroupBuffer } from "./group.js";

/** Where a live message that starts late takes the state so far from (the checker's own). */
export interface LiveSeed {
  doneItems: readonly DoneItem[];
  openGroup: GroupBuffer | null;
  message: UniMessage | undefined;
}

/** The open item of a snapshot: shaped like its `.done`, with `partial: true`. */
export type PartialItem = Record<string, unknown> & { type: string; partial: true };

/**
 * A live view of the message so far. It is updated in place by later `snapshot()` calls: read it,
 * render it, copy what you keep (`structuredClone`), but do not mutate it.
 */
export interface MessageSnapshot {
  /** Always `"assistant"`: a streamed answer. */
  role: "assistant";
  /** The done items so far, then the open item (if any) with `partial: true`. */
  content_items: (DoneItem | PartialItem)[];
  /** Null until the stop event. */
  usage_metadata: UsageMetadata | null;
  /** Null until the stop event. */
  finish_reason: FinishReason | null;
  /** The stop event's `created_at` (Unix ms), once it came. */
  created_at?: number;
}

class OpenItem {
  readonly item: PartialItem;
  readonly pending: Record<string, unknown>[] = [];
  private parser: PartialJsonParser | undefined;
  private bytes = new Uint8Array(0);
  private size = 0;

  constructor(readonly kind: Kind, first: Record<string, unknown>) {
    const item: PartialItem = { type: `${kind}.done`, partial: true };
    switch (kind) {
      case "text":
      case "thinking":
        item[kind] = "";
        break;
      case "tool_call":
        item.name = first.name;
        item.tool_call_id = first.tool_call_id;
        item.arguments = {};
        this.parser = new PartialJsonParser();
        break;
      case "inline_data":
      case "inline_thinking":
        item.data = this.bytes;
        item.mime_type = first.mime_type;
        break;
      case "embedding":
        item.embedding = [];
        break;
    }
    this.item = item;
  }

  fold(): void {
    const { item, pending } = this;
    for (const f of pending) {
      if (hasFidelity(f.fidelity)) item.fidelity = f.fidelity;
      switch (this.kind) {
        case "text":
        case "thinking":
          item[this.kind] = (item[this.kind] as string) + (f[this.kind] as string);
          break;
        case "tool_call":
          this.parser!.push(f.arguments as string);
          break;
        case "inline_data":
        case "inline_thinking":
          this.append(f.data as Uint8Array);
          break;
        case "embedding":
          item.embedding = f.embedding;
          break;
      }
    }
    pending.length = 0;
    if (this.parser) {
      const v = this.parser.value;
      if (typeof v === "object" && v !== null && !Array.isArray(v)) item.arguments = v;
    }
    if (this.kind === "inline_data" || this.kind === "inline_thinking") item.data = this.bytes.subarray(0, this.size);
  }

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
  private readonly snap: MessageSnapshot = { role: "assistant", content_items: [], usage_metadata: null, finish_reason: null };
  private open: OpenItem | null = null;
  private tapped: ((e: UniEvent) => void) | undefined;
  private tappedFor: ((e: UniEvent) => void) | undefined;
  private enabled: boolean;

  /**
   * With a `seed`, nothing is done per event until the first `snapshot()`, which then starts from
   * the seed's state (a reader that never asks pays nothing); without one, every event is followed.
   */
  constructor(private readonly seed: (() => LiveSeed) | null = null) {
    this.enabled = seed === null;
  }

  private start(): void {
    this.enabled = true;
    const { doneItems, openGroup, message } = this.seed!();
    for (const item of doneItems) this.snap.content_items.push(item);
    if (openGroup) {
      const first: Record<string, unknown> = { ...openGroup.first };
      this.open = new OpenItem(openGroup.kind, first);
      this.snap.content_items.push(this.open.item);
      const growing = GROWING[openGroup.kind];
      openGroup.pieces.forEach((piece, i) =>
        this.open!.pending.push(i === 0 && openGroup.fidelity ? { [growing]: piece, fidelity: openGroup.fidelity } : { [growing]: piece }),
      );
    }
    if (message) {
      this.snap.usage_metadata = message.usage_metadata ?? null;
      this.snap.finish_reason = message.finish_reason ?? null;
      if (message.created_at !== undefined) this.snap.created_at = message.created_at;
    }
  }

  /** Takes one public (already checked) event. */
  onEvent(event: UniEvent): void {
    if (event.event_type === "stop") {
      this.snap.usage_metadata = event.usage_metadata;
      this.snap.finish_reason = event.finish_reason;
      if (event.created_at !== undefined) this.snap.created_at = event.created_at;
      return;
    }
    const item = event.content_items[0] as unknown as Record<string, unknown> & { type: string };
    if (item.type.endsWith(".delta")) {
      if (!this.open) {
        this.open = new OpenItem(item.type.slice(0, -6) as Kind, item);
        this.snap.content_items.push(this.open.item);
      }
      this.open.pending.push(item);
    } else {
      if (this.open) this.snap.content_items.pop();
      this.snap.content_items.push(item as unknown as DoneItem);
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
      };
    }
    return this.tapped!;
  }

  snapshot(): MessageSnapshot {
    if (!this.enabled) this.start();
    this.open?.fold();
    return this.snap;
  }
}
