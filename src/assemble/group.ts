/**
 * The fragments of the group being streamed (`K.delta+`): its first fragment, the pieces of its
 * growing member and its fidelity. Pieces are kept as a list, never concatenated per fragment.
 */
import { ToolCallArgumentParseError } from "../errors.js";
import { ITEM_MEMBER_DEPTH, limitError, nestsDeeper } from "../internal/limits.js";
import { isRecord } from "../internal/values.js";
import { joinBytes } from "../internal/bytes.js";
import type { Kind } from "../schema.js";
import { KIND_SPECS, type KindSpec } from "./kinds.js";
import { parseJsonText } from "../internal/json.js";

type Item = Record<string, unknown>;

/** How many verified bytes of an inline `.done` make the fragments they match give way (see `adopt`). */
const ADOPT_EVERY = 1 << 20;

export class GroupBuffer {
  readonly pieces: unknown[] = [];
  /** The fidelity of the one fragment that carried one. */
  fidelity: Record<string, unknown> | undefined;
  /** The joined length: UTF-16 units of text, or bytes of inline data. */
  length = 0;
  /** What its kind means (kinds.ts). */
  readonly spec: KindSpec;
  /** The member its fragments grow. */
  private readonly grows: string;
  /**
   * How far a capture's buffer has been found equal to the fragments (`adopt`; -1: it differs), the
   * piece and offset where that is, and how much of the buffer stands in for pieces already.
   */
  private into: Uint8Array | undefined;
  private verified = 0;
  private piece = 0;
  private at = 0;
  private adopted = 0;

  /** The most `length` its `.done` may hold within `maxEventBytes` (base64 writes 4 characters per 3 bytes). */
  private readonly room: number;

  /**
   * @param maxEventBytes the largest `.done` a reader of the stream takes (SPEC §9): past it, the
   *   group is a `StreamLimitError` the moment its fragments pass it (default: no bound)
   */
  constructor(
    readonly kind: Kind,
    readonly first: Item,
    private readonly maxEventBytes = Infinity,
  ) {
    this.spec = KIND_SPECS[kind];
    this.grows = this.spec.grows;
    this.room = this.spec.joins === "bytes" ? Math.floor(maxEventBytes / 4) * 3 : maxEventBytes;
    this.add(first);
  }

  /**
   * One more fragment. The one place a group's size is counted, on every path that grows one (the
   * assembler's and the providers' short way): a `.done` is about as long as its fragments' text (their
   * characters; the base64 of their bytes), so a group whose `.done` would pass `maxEventBytes` — an
   * event no reader takes — is refused as its fragments pass it, not built from them at the end.
   */
  add(item: Item): void {
    const piece = item[this.grows];
    this.pieces.push(piece);
    if (typeof piece === "string") this.length += piece.length;
    else if (piece instanceof Uint8Array) this.length += piece.length;
    if (this.length > this.room) {
      throw limitError("maxEventBytes", this.maxEventBytes, `the .done of the ${this.kind} item its fragments make`);
    }
  }

  /** The UTF-16 units of its text (text, thinking, tool-call arguments; 0 for bytes and vectors). */
  get characters(): number {
    const joins = KIND_SPECS[this.kind].joins;
    return joins === "text" || joins === "json" ? this.length : 0;
  }

  /** The joined text (text, thinking, tool-call arguments). */
  text(): string {
    return (this.pieces as string[]).join("");
  }

  /**
   * The tool call's arguments: the joined text parsed strictly ("" counts as {}), or
   * `ToolCallArgumentParseError` when it is not a JSON object (SPEC §4).
   */
  toolArguments(client: string, maxDepth: number): Record<string, unknown> {
    const raw = this.text();
    let parsed: unknown;
    let reason: string | undefined;
    try {
      parsed = raw === "" ? {} : parseJsonText(raw);
      if (!isRecord(parsed)) reason = "Expected a JSON object.";
    } catch (e) {
      reason = (e as Error).message;
    }
    if (reason !== undefined) {
      const { name, tool_call_id } = this.first as { name: string; tool_call_id: string };
      throw ToolCallArgumentParseError.fromRaw({ client, toolName: name, toolCallId: tool_call_id, raw, reason, rule: "DONE-CONTENT" });
    }
    if (nestsDeeper(parsed, maxDepth, ITEM_MEMBER_DEPTH)) {
      throw limitError("maxDepth", maxDepth, "the nesting of the tool call's arguments");
    }
    return parsed as Record<string, unknown>;
  }

  /** The joined bytes (inline data). */
  bytes(): Uint8Array {
    return joinBytes(this.pieces as Uint8Array[], this.length);
  }

  /** Whether the pieces join into `s`, without joining them. */
  sameText(s: unknown): boolean {
    if (typeof s !== "string" || s.length !== this.length) return false;
    let o = 0;
    for (const p of this.pieces as string[]) {
      if (!s.startsWith(p, o)) return false;
      o += p.length;
    }
    return true;
  }

  /**
   * A capture decoding this group's `.done` holds its bytes `[0, end)` in `buffer`
   * (framing/base64-capture.ts): compared with the fragments as they come, and where they agree the
   * fragments give way to a view of `buffer`, so the image is not held twice while its `.done`
   * arrives. Lossless: the pieces hold the same bytes, in other memory (a `.done` that differs, or
   * whose data turns out to be another string, is judged against them as before).
   */
  adopt(buffer: Uint8Array, end: number): void {
    if (buffer !== this.into) {
      (this.into = buffer,
        (this.verified =
          this.piece =
          this.at =
          this.adopted =
            0)); // another capture: from the start
    }
    if (this.verified < 0 || end > this.length) return; // differs, or more than the fragments brought: sameBytes says so
    const pieces = this.pieces as Uint8Array[];
    let { verified: o, piece: i, at } = this;
    while (o < end) {
      const p = pieces[i]!;
      const n = Math.min(p.length - at, end - o);
      if (!sameAt(buffer, o, at === 0 && n === p.length ? p : p.subarray(at, at + n))) {
        this.verified = -1;
        return;
      }
      o += n;
      at += n;
      if (at === p.length) (i++, (at = 0));
    }
    this.verified = o;
    const whole = o - at; // the bytes of the fully verified pieces [0, i)
    if (whole - this.adopted >= ADOPT_EVERY || whole === this.length) {
      pieces.splice(0, whole === this.length ? pieces.length : i, buffer.subarray(0, whole)); // (at the end: empty fragments too)
      this.adopted = whole;
      i = 1;
    }
    this.piece = i;
    this.at = at;
  }

  /** Whether the pieces join into `b`, without joining them. */
  sameBytes(b: unknown): boolean {
    if (!(b instanceof Uint8Array) || b.length !== this.length) return false;
    let o = 0;
    for (const p of this.pieces as Uint8Array[]) {
      if (!sameAt(b, o, p)) return false;
      o += p.length;
    }
    return true;
  }
}

/** Whether `b[o..]` starts with `p`; four bytes at a time where both are aligned (5× faster). */
function sameAt(b: Uint8Array, o: number, p: Uint8Array): boolean {
  const n = p.length;
  if (p.buffer === b.buffer && p.byteOffset === b.byteOffset + o) return true; // the same bytes (an adopted view)
  let i = 0;
  if (((b.byteOffset + o) & 3) === 0 && (p.byteOffset & 3) === 0 && n >= 64) {
    const words = n >> 2;
    const x = new Uint32Array(b.buffer, b.byteOffset + o, words);
    const y = new Uint32Array(p.buffer, p.byteOffset, words);
    for (; i < words; i++) if (x[i] !== y[i]) return false;
    i = words << 2;
  }
  for (; i < n; i++) if (b[o + i] !== p[i]) return false;
  return true;
}
