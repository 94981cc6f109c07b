// Type-level test, compiled by `tsc -p .` (the typecheck step): every item of a snapshot narrows by
// `type`, done and partial alike (a partial item is a member of its own, not a loose record), and a
// snapshot is read-only. Nothing here runs: a wrong type is a compile error on its line.
import type { MessageSnapshot, SnapshotItem, UniEventStream } from "../../src/index.ts";

/** Identical types (not merely assignable). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const is = <T extends true>(_: T): void => {};

export function render(item: SnapshotItem): string {
  switch (item.type) {
    case "text.done":
      is<Equal<typeof item.text, string>>(true);
      return item.partial ? `${item.text}…` : item.text;
    case "thinking.done":
      is<Equal<typeof item.thinking, string>>(true);
      return item.thinking;
    case "tool_call.done": {
      const name: string = item.name;
      const id: string = item.tool_call_id;
      is<Equal<typeof item.arguments, Record<string, unknown>>>(true);
      return `${name}(${id})`;
    }
    case "inline_data.done":
    case "inline_thinking.done": {
      const data: Uint8Array = item.data;
      const mime: string = item.mime_type;
      return `${mime}: ${data.length} bytes`;
    }
    case "embedding.done": {
      const v: number[] = item.embedding;
      return String(v.length);
    }
    default: {
      // every streamed kind is handled: nothing is left (users' image_url / tool_result never stream)
      const never: never = item;
      return never;
    }
  }
}

export function partialOnly(item: SnapshotItem): void {
  if (item.partial) {
    is<Equal<typeof item.partial, true>>(true);
    if (item.type === "text.done") is<Equal<typeof item.text, string>>(true);
  } else is<Equal<typeof item.partial, undefined>>(true);
}

export function readOnly(stream: UniEventStream): void {
  const { snapshot, subscribe } = stream; // bound: usable detached
  const s: MessageSnapshot = snapshot();
  const off: () => void = subscribe(() => {});
  off();
  // @ts-expect-error a snapshot is immutable
  s.content_items.push(s.content_items[0]!);
  // @ts-expect-error a snapshot is immutable
  s.finish_reason = "stop";
  const first = s.content_items[0];
  // @ts-expect-error the open item is immutable
  if (first?.type === "text.done" && first.partial) first.text = "x";
}
