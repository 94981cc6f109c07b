// What the pass-through door tests (chat-, anthropic- and gemini-pass-through.test.ts) share: the
// provider's fake as a fetch that keeps the bytes of each answer it gave (for the byte-for-byte
// comparison with what the client got), and the principal's ledger rows read once the stream has
// settled (the ledger is written after the answer ends). One copy; each file keeps its own rows.

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
type Row = Record<string, unknown>;

/** `fake` as a fetch keeping each answer's bytes as text in `sent`, but for a request whose body `keep` refuses (say, one that never ends). */
export function recorded(fake: unknown, keep: (body: string) => boolean = () => true): { sent: string[]; fetch: Fetch } {
  const sent: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input as RequestInfo, init);
    const kept = keep(await request.clone().text());
    const answer = await (fake as Fetch)(request);
    if (kept) sent.push(await answer.clone().text());
    return answer;
  };
  return { sent, fetch };
}

/** GET `url` (the relay's /v1/usage) through `fetch` with `headers` until it has a row (50 tries, 10 ms apart): its rows. */
export async function settledUsage(fetch: Fetch, url: string, headers: Record<string, string>): Promise<Row[]> {
  let rows: Row[] = [];
  for (let i = 0; i < 50 && rows.length === 0; i++) {
    rows = ((await (await fetch(url, { headers })).json()) as { data: Row[] }).data;
    if (rows.length === 0) await new Promise((r) => setTimeout(r, 10));
  }
  return rows;
}
