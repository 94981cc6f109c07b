/**
 * The provider core's assembler (issue #39): assemble mode's (assemble/assembler.ts) with a short way
 * for the common case of a provider's stream — a fragment that continues the item streaming now —
 * one for a whole tool call whose arguments the reader holds parsed (`know`), and the seed of a live
 * message that starts late. Here, not in assemble/, so that only the
 * providers' bundles carry it.
 */
import { MessageAssembler } from "../assemble/assembler.js";
import type { GroupBuffer } from "../assemble/group.js";
import type { KindSpec } from "../assemble/kinds.js";
import type { LiveSeed } from "../assemble/live-message.js";
import { ITEM_MEMBER_DEPTH, nestsDeeper } from "../internal/limits.js";
import { fidelityEqual, sameAfterJson } from "../internal/values.js";
import { rememberJsonText } from "./json-text.js";
import type { UniEvent } from "../schema.js";

type Item = Record<string, unknown> & { type: string };
type Emit = (event: UniEvent) => void;

/**
 * @internal For tests only: whether the assemblers made from now on take the short ways (`continues`,
 * and `know`'s parsed arguments). Off, every fragment goes the general way and every `.done` is parsed
 * from its text, so a test can compare the two on the same input.
 */
export const shortWay = { on: true };

const never = (): boolean => false;

export class ProviderAssembler extends MessageAssembler {
  constructor(client: string, limits: { maxItems: number; maxDepth: number; maxEventBytes: number }) {
    super(client, limits);
    // a provider's fragments are small records whose group the package joins: its .done must pass the
    // readers of what the package writes (SPEC §9), counted as the fragments come (group.ts)
    this.maxDone = limits.maxEventBytes;
    // chosen once per stream, never asked per fragment
    this.continues = shortWay.on ? this.shortFragment : never;
    this.knows = shortWay.on;
  }

  /** Whether a whole tool call's arguments the reader holds parsed are taken (`know`): the short way's too. */
  private readonly knows: boolean;
  /** The last whole tool call's arguments as the reader holds them: its text (the very string) and value. */
  private known: { text: string; value: Record<string, unknown> } | undefined;

  /**
   * A tool call the reader wrote whole, its `arguments` text made by `JSON.stringify(value)` (Gemini's
   * `functionCall.args`): its `.done` takes `value` instead of parsing the text again, when that gives
   * the same (no -0, no number past a double: `sameAfterJson`) within the depth limit. Said after
   * the fragment was written, so a call that closes the one before finds that one's still here.
   */
  know(text: string, value: Record<string, unknown>): void {
    if (this.knows) this.known = { text, value };
  }

  protected override joined(spec: KindSpec, g: GroupBuffer): unknown {
    const k = this.known;
    if (k !== undefined && g.pieces.length === 1 && g.pieces[0] === k.text && g.kind === "tool_call") {
      this.known = undefined;
      if (!nestsDeeper(k.value, this.limits.maxDepth, ITEM_MEMBER_DEPTH) && sameAfterJson(k.value)) {
        rememberJsonText(k.value, k.text); // (its text is `JSON.stringify(value)`: written once, providers/json-text.ts)
        return k.value;
      }
    }
    return super.joined(spec, g);
  }

  /**
   * The short way: a fragment `item` of the item `key` that continues the open group with nothing the
   * general way would change — same type and id, its header empty, no fidelity or the one the item
   * has already (which goes out once) — is added and emitted at once (no fidelity object, no copies,
   * no input event); false, with nothing done, otherwise: the caller pushes it the general way. What
   * it emits is what `push` would: none of SPEC §5's rules can fail or act on such a fragment.
   */
  readonly continues: (item: Record<string, unknown>, key: string, createdAt: number, emit: Emit) => boolean;

  private shortFragment(input: Record<string, unknown>, key: string, createdAt: number, emit: Emit): boolean {
    const open = this.current;
    if (open === null || open.group === undefined || key !== open.id) return false;
    const g = open.group;
    const spec = g.spec;
    if (input.type !== g.first.type || spec.oneFragment || spec.begins(input)) return false;
    for (const m of spec.header) if (input[m] !== "") return false;
    let fields = input as Item;
    const given = input.fidelity;
    if (given !== undefined) {
      if (open.fidelity === undefined || !fidelityEqual(open.fidelity, given)) return false;
      const { fidelity: _, ...rest } = fields;
      fields = rest as Item;
    }
    this.lastCreatedAt = createdAt;
    if (spec.droppable && spec.empty(fields)) return true; // carries nothing
    g.add(fields);
    emit(this.event(fields, createdAt));
    return true;
  }

  /** Where a live message that starts late takes the state so far from (live-message.ts): the open group with its fidelity. */
  liveSeed(): LiveSeed {
    const open = this.current;
    const g = open?.group;
    if (g !== undefined) g.fidelity = open!.fidelity;
    return { doneItems: this.doneItems, openGroup: g ?? null, message: this.message };
  }
}
