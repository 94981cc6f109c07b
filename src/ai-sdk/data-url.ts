/**
 * Bytes ↔ `data:` URLs (RFC 2397), the form the AI SDK's `file` parts carry inline media in.
 * Written out as `data:<mime>;base64,<padded base64>`; read back from that form or from the
 * percent-encoded form (`data:text/plain,a%20b`), so a URL built anywhere decodes to its bytes.
 */
import { decodeBase64, encodeBase64 } from "../index.js";

export function toDataUrl(bytes: Uint8Array, mimeType: string): string {
  return `data:${mimeType};base64,${encodeBase64(bytes)}`;
}

/** The bytes of a `data:` URL, or undefined when `url` is not one (or its payload does not decode). */
export function fromDataUrl(url: string): Uint8Array | undefined {
  if (!/^data:/i.test(url)) return undefined;
  const comma = url.indexOf(",");
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (/;base64$/i.test(meta)) {
    return decodeBase64(payload.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))));
  }
  return percentDecode(payload);
}

/** Percent-decoding to bytes: `%XX` is one byte, any other character its UTF-8 bytes. */
function percentDecode(text: string): Uint8Array | undefined {
  const out: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < text.length;) {
    if (text[i] === "%") {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-f]{2}$/i.test(hex)) return undefined;
      out.push(parseInt(hex, 16));
      i += 3;
    } else {
      const cp = text.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of encoder.encode(ch)) out.push(b);
      i += ch.length;
    }
  }
  return Uint8Array.from(out);
}
