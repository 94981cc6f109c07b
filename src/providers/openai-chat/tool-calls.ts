/**
 * OpenAI Chat's tool calls → one group per call, in index order (SPEC §9). Parallel calls may
 * interleave their `tool_calls[].index` fragments, and UniEvent groups never interleave: the call
 * whose turn it is (index 0 first, then each next index) streams live as its fragments arrive; a
 * fragment of any other index is held, counted against the stream's limits (`FragmentSink.hold`),
 * until the calls before it end. A live call ends when a later call's fragment arrives after its
 * arguments closed their JSON (sequential calls: each streams live in turn); every call still held
 * is written, in index order, at `finish_reason` or `[DONE]`; text or reasoning written meanwhile ends
 * the live call too. MMSP's client appends every fragment to the call named last, which corrupts
 * interleaved calls.
 */
import { Fault } from "../../internal/fault.js";
import type { FragmentSink } from "../event-reader.js";

/** A call waiting for its turn: its header and its argument fragments as they came. */
interface HeldCall {
  id: string;
  name: string;
  pieces: string[];
  /** Characters counted against the limits (header and pieces). */
  chars: number;
}

/** The call streaming now: its header (for servers that send no index) and where its arguments' JSON stands. */
interface LiveCall {
  index: number;
  id: string;
  name: string;
  end: JsonEnd;
}

/** The calls of one answer (choice 0). */
export class ToolCalls {
  private readonly held = new Map<number, HeldCall>();
  private live: LiveCall | undefined;
  /** The index whose turn comes next (those below it were written or stream now). */
  private next = 0;
  /** The index of the call a fragment without one continues (servers that send no index). */
  private lastIndex = -1;

  /** One `tool_calls[]` fragment: written at once when its call streams live, else held. */
  add(index: number | undefined, id: string, name: string, args: string, sink: FragmentSink): void {
    const at = index ?? this.unindexed(id, name);
    this.lastIndex = at;
    const live = this.live;
    if (live !== undefined && at === live.index) return this.stream(live, args, sink);
    if (at < this.next - (live === undefined ? 0 : 1)) {
      // a call already written: a repeated header is nothing new, more arguments would be appended to a closed call
      if (args.trim() === "") return;
      throw new Fault(
        "NO-INTERLEAVE",
        `tool call ${at} sent arguments after it had ended (its JSON complete and the next call begun, or other content written since)`,
      );
    }
    let call = this.held.get(at);
    const header = (call === undefined || call.name === "") && name !== "";
    // its turn: the call before it ended (its arguments closed their JSON), or none streams
    const turn = at === (live === undefined ? this.next : live.end.closed ? live.index + 1 : -1);
    if (turn && (name !== "" || (call !== undefined && call.name !== ""))) return this.begin(at, call, id, name, args, sink);
    // held: counted before it is kept
    sink.hold(
      args.length + (call === undefined || call.id === "" ? id.length : 0) + (header ? name.length : 0),
      call === undefined ? 1 : 0,
    );
    if (call === undefined) this.held.set(at, call = { id: "", name: "", pieces: [], chars: 0 });
    if (call.id === "") call.id = id, call.chars += id.length;
    if (header) call.name = name, call.chars += name.length;
    if (args !== "") call.pieces.push(args), call.chars += args.length;
  }

  /** Another item is written (text, reasoning): the call streaming live has ended, as groups never interleave. */
  interrupt(): void {
    this.live = undefined;
  }

  /** The calls end (`finish_reason`, `[DONE]`): those still held are written, in index order. */
  flush(sink: FragmentSink): void {
    if (this.held.size > 0) {
      const indexes = [...this.held.keys()].sort((a, b) => a - b);
      for (const index of indexes) this.begin(index, this.held.get(index), "", "", "", sink);
    }
    this.live = undefined;
    this.next = 0;
    this.lastIndex = -1;
  }

  /** Call `index` begins streaming: its header and what was held of it written, then its live fragments. */
  private begin(index: number, call: HeldCall | undefined, id: string, name: string, args: string, sink: FragmentSink): void {
    const live: LiveCall = { index, id: call?.id || id, name: call?.name || name, end: new JsonEnd() };
    this.live = live;
    this.next = index + 1;
    const pieces = call?.pieces ?? [];
    const first = pieces.length > 0 ? pieces[0]! : args;
    live.end.scan(first);
    // a call without an id is named by its function's name (as MMSP does)
    sink.item({ type: "tool_call.delta", name: live.name, tool_call_id: live.id || live.name, arguments: first }, `tool_calls.${index}`);
    if (call === undefined) return;
    this.held.delete(index);
    sink.hold(-call.chars, -1);
    for (let i = 1; i < pieces.length; i++) this.stream(live, pieces[i]!, sink);
    if (pieces.length > 0) this.stream(live, args, sink);
  }

  private stream(live: LiveCall, args: string, sink: FragmentSink): void {
    if (args === "") return;
    live.end.scan(args);
    sink.item({ type: "tool_call.delta", name: "", tool_call_id: "", arguments: args }, `tool_calls.${live.index}`);
  }

  /**
   * The call a fragment without an index belongs to (some compatible servers send none): one that
   * names another call (a new id, or a new name without id) begins the next; a repeated header or a
   * bare argument piece continues the last.
   */
  private unindexed(id: string, name: string): number {
    const last = this.live?.index === this.lastIndex ? this.live : this.held.get(this.lastIndex);
    const begins = last === undefined || (id !== "" && id !== last.id) || (id === "" && name !== "" && name !== last.name);
    return begins ? this.lastIndex + 1 : this.lastIndex;
  }
}

/**
 * Whether a call's arguments have closed their JSON object (or array): brackets counted outside
 * strings, as the text streams in, integers only. Anything else (a bare scalar, text after the
 * close) never counts as closed, so the calls after it stay held: the safe side.
 */
class JsonEnd {
  closed = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private broken = false;

  scan(text: string): void {
    if (this.broken) return;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92 /* \ */) this.escaped = true;
        else if (c === 34 /* " */) this.inString = false;
      } else if (c === 32 || c === 10 || c === 13 || c === 9) continue;
      else if (this.closed || (this.depth === 0 && c !== 123 /* { */ && c !== 91 /* [ */)) {
        // text after the close, or a value that is no object: never "closed"
        this.closed = false;
        this.broken = true;
        return;
      } else if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth++;
      else if (c === 125 /* } */ || c === 93 /* ] */) this.closed = --this.depth === 0;
    }
  }
}
