/**
 * The provider core's assembler (issue #39): assemble mode's (assemble/assembler.ts) with a short way
 * for the common case of a provider's stream — a fragment that continues the item streaming now —
 * and the seed of a live message that starts late. Here, not in assemble/, so that only the
 * providers' bundles carry it.
 */
import { MessageAssembler } from "../assemble/assembler.js";
import type { LiveSeed } from "../assemble/live-message.js";
import { fidelityEqual } from "../internal/values.js";
import type { UniEvent } from "../schema.js";

type Item = Record<string, unknown> & { type: string };
type Emit = (event: UniEvent) => void;

/**
 * @internal For tests only: whether the assemblers made from now on take the short way (`continues`).
 * Off, every fragment goes the general way, so a test can compare the two on the same input.
 */
export const shortWay = { on: true };

const never = (): boolean => false;

export class ProviderAssembler extends MessageAssembler {
  constructor(client: string, limits: { maxItems: number; maxDepth: number }) {
    super(client, limits);
    // chosen once per stream, never asked per fragment
    this.continues = shortWay.on ? this.shortFragment : never;
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
