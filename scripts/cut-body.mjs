// A connection that drops: for the checks that cut a relay's answer and resume it.

/** A body that delivers the first `n` bytes of `body`, then fails like a dropped connection (`why` in its error), letting go of the real one. */
export function cutAfter(body, n, why = "cut") {
  const reader = body.getReader();
  let left = n;
  return new ReadableStream({
    async pull(c) {
      if (left <= 0) {
        reader.cancel().catch(() => {});
        return c.error(new TypeError(`network error (${why})`));
      }
      const { done, value } = await reader.read();
      if (done) return c.close();
      const part = value.subarray(0, left);
      left -= part.length;
      c.enqueue(part);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
