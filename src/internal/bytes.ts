/** Joining byte pieces: the fragments of an inline item, the pieces a capture decoded. */

/** The bytes of `parts`, one after another, in one new array (`size`: their total length, which every caller counts as it goes). */
export function joinBytes(parts: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
