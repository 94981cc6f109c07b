/**
 * The grammar of a public stream (SPEC §3) and the building of each `.done` from its fragments
 * (SPEC §4), one event at a time. Fragments are kept as a list of pieces and compared with the
 * `.done` piece by piece, so a group costs its size once.
 */
import { EmptyResponseError } from "../errors.js";
import { Fault } from "../internal/fault.js";
import { fidelityEqual, hasFidelity, isRecord, memberCount } from "../internal/values.js";
import type { DoneItem, FinishReason, Kind, UniEvent, UniMessage, UsageMetadata } from "../schema.js";
import { limitError } from "../internal/limits.js";
import { GroupBuffer } from "./group.js";
import type { Grammar } from "./grammar.js";
import { itemType, keepsHeader, KIND_SPECS, onlyThoughts } from "./kinds.js";
import { plainDeltaItem } from "../decode/fast-validate.js";

type Item = Record<string, unknown> & { type: string };

const never = (): boolean => false;

export class MessageValidator implements Grammar {
  /** The group being streamed now, if any. */
  openGroup: GroupBuffer | null = null;
  /** The done items so far (live: do not mutate). */
  readonly doneItems: DoneItem[] = [];
  /** The stop event has passed the checks. */
  stopped = false;
  message: UniMessage | undefined;
  answered = false;
  /** The characters of the closed groups. */
  private closed = 0;

  constructor(
    private readonly client: string,
    private readonly limits: { maxItems: number; maxDepth: number },
  ) {
    this.takeFragment = limits.maxDepth >= 3 ? this.shortFragment : never;
  }

  get started(): boolean {
    return this.openGroup !== null || this.doneItems.length > 0 || this.stopped;
  }

  characters(): number {
    return this.closed + (this.openGroup === null ? 0 : this.openGroup.characters);
  }

  /**
   * The short way (Grammar): a fragment continuing the open group with nothing but its members (the
   * envelope's, `plainDeltaItem`; the item's: `type`, the grown one and the header, of the kind's types,
   * the header kept), so no rule can fail. Off below `maxDepth` 3, the nesting of such an event.
   */
  readonly takeFragment: (value: unknown, emit: (event: UniEvent) => void) => boolean;

  private shortFragment(value: unknown, emit: (event: UniEvent) => void): boolean {
    const g = this.openGroup;
    if (g === null) return false;
    const item = isRecord(value) ? plainDeltaItem(value) : undefined;
    if (item === undefined || item.type !== g.first.type) return false;
    const { spec, first } = g;
    if (spec.oneFragment || memberCount(item) !== 2 + spec.header.length) return false;
    if (!spec.valid(item, true) || !keepsHeader(spec.header, item, first)) return false;
    g.add(item);
    emit(value as UniEvent);
    return true;
  }

  /** Checks one (schema-valid) event and passes it on. Throws a `Fault` or a typed error. */
  push(event: UniEvent, emit: (event: UniEvent) => void): void {
    if (this.stopped) throw new Fault("STOP-LAST", "an event arrived after the stop event");
    if (event.event_type === "stop") this.stop(event);
    else this.item(event.content_items[0] as unknown as Item);
    emit(event);
  }

  /** The input ended. */
  end(): void {
    if (this.stopped) return;
    const open = this.openGroup ? ` (a ${this.openGroup.kind} group was still open)` : "";
    throw new Fault("STOP-LAST", `the stream ended without a stop event${open}: it was truncated`);
  }

  private item(item: Item): void {
    const type = item.type;
    const known = itemType(type);
    const kind = known ? known.kind : (type.slice(0, type.lastIndexOf(".")) as Kind);
    const delta = known ? known.delta : type.endsWith(".delta");
    const f = item.fidelity;
    if (f != null && isRecord(f) && Object.prototype.hasOwnProperty.call(f, "item_id")) {
      throw new Fault("NO-ITEM-ID", `${type} carries fidelity.item_id, which never appears on the public wire`);
    }
    const g = this.openGroup;
    if (g) {
      if (kind !== g.kind) {
        throw new Fault("NO-INTERLEAVE", `${type} arrived while a ${g.kind} group was open (its ${g.kind}.done had not come)`);
      }
      if (delta) this.fragment(g, item);
      else this.close(g, item);
      return;
    }
    if (!delta) throw new Fault("DONE-AFTER-DELTA", `${type} arrived with no ${kind}.delta before it`);
    if (this.doneItems.length >= this.limits.maxItems) throw limitError("maxItems", this.limits.maxItems, "the message's item count");
    const header = known ? known.spec.header : [];
    if (header.length > 0 && !header.every((m) => item[m])) {
      throw new Fault("TOOL-HEADER", `the first ${type} of a call must carry a non-empty ${header.join(" and ")}`);
    }
    this.openGroup = new GroupBuffer(kind, item);
    if (!KIND_SPECS[kind].thought) this.answered = true; // (the timings' first content)
    this.fidelity(this.openGroup, item);
  }

  private fragment(g: GroupBuffer, item: Item): void {
    const spec = KIND_SPECS[g.kind];
    if (spec.oneFragment) throw new Fault("ONE-VECTOR", `an ${g.kind} group has more than one ${g.kind}.delta`);
    // later fragments carry the header empty, or repeat the first's (MMSP's server forwards a repeat)
    if (!keepsHeader(spec.header, item, g.first)) {
      const names = spec.header.join(" or ");
      throw new Fault(
        "TOOL-HEADER",
        `a later ${item.type} of a call carries another ${names} than its first; later ones carry them empty or the same`,
      );
    }
    this.fidelity(g, item);
    g.add(item);
  }

  private fidelity(g: GroupBuffer, item: Item): void {
    if (!hasFidelity(item.fidelity)) return;
    if (g.fidelity !== undefined) {
      throw new Fault("FIDELITY-ONCE", `a second fragment of this ${g.kind} group carries fidelity`);
    }
    g.fidelity = item.fidelity;
  }

  private close(g: GroupBuffer, done: Item): void {
    const what = KIND_SPECS[g.kind].mismatch(g, done, this.client, this.limits.maxDepth);
    if (what !== undefined) throw new Fault("DONE-CONTENT", `${done.type} does not match its fragments: ${what}`);
    if (!fidelityEqual(done.fidelity, g.fidelity)) {
      throw new Fault("FIDELITY-EQUAL", `${done.type} carries a different fidelity than its group's fragment`);
    }
    this.openGroup = null;
    this.closed += g.characters;
    this.doneItems.push(done as unknown as DoneItem);
  }

  private stop(event: UniEvent): void {
    if (this.openGroup) throw new Fault("CLOSED", `the stop event arrived while a ${this.openGroup.kind} group was open`);
    const usage = event.usage_metadata as UsageMetadata;
    const finish = event.finish_reason as FinishReason;
    if (onlyThoughts(this.doneItems)) {
      throw new EmptyResponseError({ client: this.client, finishReason: finish, usageMetadata: usage });
    }
    const message: UniMessage = {
      role: "assistant",
      content_items: this.doneItems,
      usage_metadata: usage,
      finish_reason: finish,
    };
    if (event.created_at !== undefined) message.created_at = event.created_at;
    this.stopped = true;
    this.message = message;
  }
}
