// Helpers shared by the reading cases: run bytes through the reader and see what came out.
import { UniEventStream, type UniEventStreamOptions } from "../../dist/index.js";
import { byteStream, settle } from "../harness.ts";

export interface ReadResult {
  events: any[];
  error: any;
  message: any;
  messageError: any;
}

/** Reads the chunks through `UniEventStream`, collecting events, the error and the message. */
export async function read(chunks: (string | Uint8Array)[] | string | Uint8Array, options?: UniEventStreamOptions): Promise<ReadResult> {
  const stream = new UniEventStream(options);
  const list = Array.isArray(chunks) ? chunks : [chunks];
  return settle(byteStream(list).pipeThrough(stream), stream.message);
}

/** Reads and expects an error; returns it after checking that `message` rejected with the same one. */
export async function readError(chunks: (string | Uint8Array)[] | string | Uint8Array, options?: UniEventStreamOptions): Promise<{ error: any; events: any[] }> {
  const r = await read(chunks, options);
  if (r.error === undefined) throw new Error(`expected the stream to fail, but it ended with ${r.events.length} events`);
  if (r.messageError !== r.error) throw new Error(`message rejected with ${String(r.messageError)}, not the readable's error ${String(r.error)}`);
  return { error: r.error, events: r.events };
}
