// Type-level test, compiled by `tsc -p .`: what `message` resolves to renders with the code that renders
// a snapshot (issue #35: `DoneItem[]` from `message` failed TS2345 on `ImageUrlDone` where a
// snapshot's items were expected). A stream carries the six streaming kinds only, and `message` says so.
import type { MessageSnapshot, ResponseEvents, SnapshotItem, UniEventStream, UniMessage } from "../../src/index.ts";
import type { ProviderEvents } from "../../src/providers/index.ts";

/** A renderer written against the snapshot's types (as docs/guide/ui.md's React example is). */
declare function renderItems(items: readonly SnapshotItem[]): string;

export async function finalAndLive(stream: UniEventStream, answer: ResponseEvents, provider: ProviderEvents): Promise<void> {
  renderItems(stream.snapshot().content_items);
  renderItems((await stream.message).content_items); // the finished message, with the same renderer
  renderItems((await answer.message).content_items);
  renderItems((await provider.message).content_items);
  const kept: MessageSnapshot["content_items"] = (await answer.message).content_items;
  // …and it is still a UniMessage: it goes back into the next request's messages
  const history: UniMessage[] = [await stream.message, await provider.message];
  void kept, history;
}
