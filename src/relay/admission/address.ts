// Admission: SPEC §10 "Principals and quotas" (an anonymous caller's address: the runtime's, never a header a client sets).
//
// The address of an anonymous client (SPEC §10: its principal is "anon:" + that address), from what
// the runtime saw and never from a header the client can set. In order:
//   the address the relay's fetch was given (`relay.fetch(request, env, { clientAddress })`: the
//     kit's `serve` gives the socket's; `Deno.serve`'s `info.remoteAddr.hostname`, Bun's
//     `server.requestIP(request)`), else createRelay's `clientAddress(request, env)`;
//   on Cloudflare (the request has `request.cf`, which only the runtime sets) CF-Connecting-IP, which
//     the edge sets (a client's own is replaced);
//   the header the operator names (`trustedAddressHeader`, TRUSTED_ADDRESS_HEADER) behind a proxy that
//     sets it: its last comma-separated entry, the one that proxy added (X-Forwarded-For's rule);
//   none: library mode without an address. An anonymous request that needs one (a claim on the
//     anonymous quota, its usage) is then refused with the ways to give it (create-relay.ts).
// An IPv6 client is keyed by its /64 (one host holds a whole /64: one client, however many addresses
// it takes from it); an IPv4-mapped IPv6 address is the IPv4 address.
import { refusal } from "../refusal.js";
import { ownValue } from "../../internal/values.js";

/** The variable of the trusted header. */
export interface AddressEnv {
  /** The header a proxy in front of the relay sets to the client's address (`X-Forwarded-For`), when `trustedAddressHeader` is not given. */
  TRUSTED_ADDRESS_HEADER?: string;
}

/** createRelay's `clientAddress`: the client's address as the runtime saw it (null or undefined: not known). */
export type ClientAddressFunction<E> = (request: Request, env: E) => string | null | undefined;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** Checks `clientAddress` and `trustedAddressHeader` at the boundary. */
export function checkAddressOptions(clientAddress: unknown, trustedAddressHeader: unknown): void {
  if (clientAddress !== undefined && typeof clientAddress !== "function") {
    throw new TypeError("createRelay: `clientAddress` must be a function (request, env) => the client's address (or null).");
  }
  if (trustedAddressHeader !== undefined && (typeof trustedAddressHeader !== "string" || !TOKEN.test(trustedAddressHeader))) {
    throw new TypeError('createRelay: `trustedAddressHeader` must be a header name (e.g. "x-forwarded-for").');
  }
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** An IPv6 address's eight groups (numbers), or null when it is none. */
function groups6(text: string): number[] | null {
  let tail: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (!IPV4.test(dotted[2]!)) return null;
    const [a, b, c, d] = dotted[2]!.split(".").map(Number) as [number, number, number, number];
    tail = [a * 256 + b, c * 256 + d];
    text = dotted[1]!.endsWith("::") ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
}

/**
 * The key of a client's address: an IPv4 address as it is, an IPv6 address as its /64
 * (`2001:db8:1:2::/64`), an IPv4-mapped IPv6 address as the IPv4 address; null when `text` is no IP address.
 */
export function addressKey(text: string): string | null {
  let a = text.trim();
  if (a.startsWith("[") && a.endsWith("]")) a = a.slice(1, -1);
  a = a.replace(/%[\w.-]+$/, ""); // (an IPv6 zone: the host's own interface name)
  if (IPV4.test(a)) return a;
  if (!a.includes(":")) return null;
  const g = groups6(a);
  if (g === null) return null;
  if (g.slice(0, 5).every((n) => n === 0) && g[5] === 0xffff) {
    return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join(".");
  }
  return `${g.slice(0, 4).map((n) => n.toString(16)).join(":")}::/64`;
}

/** Where the relay finds a request's address (create-relay.ts makes one from its options). */
export interface AddressSources<E> {
  /** The address the relay's fetch was given for this request, if any. */
  given: string | null | undefined;
  clientAddress: ClientAddressFunction<E> | undefined;
  trustedAddressHeader: string | undefined;
}

/** The key of a request's client address (see the top), or null when the runtime gave none. */
export function clientAddressOf<E>(request: Request, env: E, sources: AddressSources<E>): string | null {
  const fromRuntime = sources.given ?? sources.clientAddress?.(request, env);
  if (fromRuntime !== undefined && fromRuntime !== null) {
    if (typeof fromRuntime !== "string") throw new TypeError("createRelay: `clientAddress` must return a string, null or undefined.");
    return addressKey(fromRuntime);
  }
  const cf = (request as { cf?: unknown }).cf;
  if (typeof cf === "object" && cf !== null) {
    const ip = request.headers.get("cf-connecting-ip");
    return ip === null ? "unknown" : addressKey(ip) ?? "unknown"; // (the edge always sets it: one shared name otherwise, as before)
  }
  const header = sources.trustedAddressHeader ?? ownValue(env as AddressEnv, "TRUSTED_ADDRESS_HEADER");
  if (header === undefined || header === "" || !TOKEN.test(header)) return null;
  const value = request.headers.get(header);
  if (value === null) return null;
  return addressKey(value.split(",").at(-1)!);
}

/** The refusal of an anonymous request that needs its address where the runtime gave none. */
export function noAddressRefusal(): Response {
  return refusal(
    403,
    "PermissionDeniedError",
    "This relay serves anonymous clients per address, and it was not given the client's address (outside Cloudflare, a header " +
      "a client sets is not trusted). Send a key (x-relay-key or Authorization: Bearer), or the relay's operator gives the address: " +
      "relay.fetch(request, env, { clientAddress }) (the kit's serve() does; Deno.serve's info.remoteAddr.hostname, " +
      "Bun's server.requestIP(request).address), createRelay's `clientAddress`, or `trustedAddressHeader` " +
      "(TRUSTED_ADDRESS_HEADER) behind a proxy that sets it.",
  );
}
