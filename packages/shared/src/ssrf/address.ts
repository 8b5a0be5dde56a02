/**
 * Pure address logic for the SSRF guard: host normalisation, address classification and the
 * ALLOWED_TARGET_CIDRS escape hatch. No I/O here — DNS and sockets live in guard.ts.
 *
 * Policy (product decision): a target whose host is, or resolves to, a non-public address is refused
 * unless the address falls inside an explicitly allowed CIDR. "Non-public" is decided by the tables
 * below, and IPv6 forms that merely wrap an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
 * Teredo) are unwrapped so that e.g. `::ffff:127.0.0.1` is treated exactly like `127.0.0.1`.
 */
import ipaddr from 'ipaddr.js';

/** A parsed CIDR block. Plain data (no library objects) so it can be logged, cloned and compared. */
export interface Cidr {
  readonly family: 4 | 6;
  /** Canonical text of the network address, e.g. `10.0.0.0` or `fd00::`. */
  readonly network: string;
  readonly prefixLength: number;
  /** Canonical `network/prefixLength`. */
  readonly text: string;
  /** Network address as 4 or 16 bytes; what matching actually uses. */
  readonly bytes: readonly number[];
}

/** Blocked address classes. `null` from {@link classifyAddress} means "public". */
export type BlockedClass =
  'unspecified' | 'loopback' | 'private' | 'linkLocal' | 'carrierGradeNat' | 'multicast' | 'broadcast' | 'reserved';

export type NormalisedHost = { kind: 'ip'; address: string; family: 4 | 6 } | { kind: 'name'; name: string };

export type AddressVerdict = { ok: true } | { ok: false; reason: string };

// ---------------------------------------------------------------------------------------------
// Host normalisation
// ---------------------------------------------------------------------------------------------

// Whitespace/control characters: the WHATWG URL parser silently strips tabs and newlines, and
// `net.connect` would not, so such input is refused rather than normalised into something the
// connecting code never sees.
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;
// Characters that would make the URL parser read part of the input as userinfo, port, path, query
// or fragment (`evil.com@127.0.0.1`, `127.0.0.1/x`), i.e. a different host than the caller meant.
const URL_DELIMITERS = /[/\\?#@]/;

/**
 * Normalise a host as a WHATWG-compliant HTTP client would see it.
 *
 * Node's `new URL()` implements the WHATWG host parser, which already turns every legacy IPv4
 * spelling (`2130706433`, `0x7f000001`, `0177.0.0.1`, `0x7f.1`, `127.1`, `127.0.1`, `127.0.0.1.`,
 * percent-encoded and full-width digits) into dotted decimal, compresses IPv6 and lowercases /
 * punycodes names. Reusing it means we classify exactly the address an HTTP client will dial
 * instead of maintaining a second parser that could disagree with it.
 *
 * Accepts bare IPv6 (`::1`) and bracketed IPv6 (`[::1]`). Names lose one trailing dot (`localhost.`
 * is `localhost`). Throws an Error for anything that is not a valid host (ports, paths, userinfo,
 * whitespace, out-of-range numbers like `256.1.1.1`, names ending in a number like `foo.0x1`).
 */
export function normaliseHost(host: string): NormalisedHost {
  if (typeof host !== 'string' || host.length === 0) throw new Error('Host must be a non-empty string');
  if (CONTROL_OR_SPACE.test(host))
    throw new Error(`Invalid host ${JSON.stringify(host)}: contains whitespace or control characters`);
  if (URL_DELIMITERS.test(host)) throw new Error(`Invalid host ${JSON.stringify(host)}: contains URL delimiters`);

  let input = host;
  // Bare IPv6 (as printed by dns.lookup) contains colons; the URL parser only accepts it bracketed.
  if (!input.startsWith('[') && input.includes(':')) input = `[${input}]`;
  if (input.startsWith('[')) {
    // Exactly one bracketed literal and nothing after it — otherwise `[::1]:80` would parse as a port.
    if (!input.endsWith(']') || input.indexOf(']') !== input.length - 1 || input.lastIndexOf('[') !== 0) {
      throw new Error(`Invalid host ${JSON.stringify(host)}: malformed IPv6 literal`);
    }
  } else if (input.includes(']')) {
    throw new Error(`Invalid host ${JSON.stringify(host)}: malformed IPv6 literal`);
  }

  let url: URL;
  try {
    url = new URL(`http://${input}/`);
  } catch {
    throw new Error(`Invalid host ${JSON.stringify(host)}`);
  }
  // Belt and braces: the pre-checks above should make these impossible, but if the parser ever
  // split the input differently we must not silently classify some other host.
  if (
    url.username ||
    url.password ||
    url.port ||
    url.pathname !== '/' ||
    url.search ||
    url.hash ||
    url.host !== url.hostname
  ) {
    throw new Error(`Invalid host ${JSON.stringify(host)}`);
  }

  const hostname = url.hostname;
  if (hostname.startsWith('[')) {
    const v6 = ipaddr.IPv6.parse(hostname.slice(1, -1));
    return { kind: 'ip', address: v6.toString(), family: 6 };
  }
  // The URL parser serialises every IPv4 host as four-part dotted decimal, and a domain can never look
  // like that (the parser would have treated it as IPv4), so this test is unambiguous.
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) {
    return { kind: 'ip', address: ipaddr.IPv4.parse(hostname).toString(), family: 4 };
  }
  // `example.com.` and `example.com` name the same host; keep one spelling so comparisons
  // (e.g. the localhost rule) cannot be bypassed with a trailing dot.
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name.length === 0 || name.endsWith('.')) throw new Error(`Invalid host ${JSON.stringify(host)}`);
  return { kind: 'name', name };
}

/**
 * `localhost` and `*.localhost` are loopback by definition (RFC 6761 §6.3), so they are treated as
 * loopback without asking DNS: a resolver or /etc/hosts must not be able to change that verdict.
 * Expects a name already passed through {@link normaliseHost} (lowercase, no trailing dot).
 */
export function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Parse an IP in any accepted spelling into a canonical ipaddr object. Throws for names. */
function toIp(ip: string): ipaddr.IPv4 | ipaddr.IPv6 {
  let input = ip;
  // Scoped IPv6 (`fe80::1%eth0`) can come back from getaddrinfo; the zone does not change the
  // address class, and URL hosts cannot carry one, so drop it before normalising.
  if (input.includes(':') && input.includes('%')) input = input.replace(/%[^\]]*/, '');
  const host = normaliseHost(input);
  if (host.kind !== 'ip') throw new Error(`Not an IP address: ${JSON.stringify(ip)}`);
  return host.family === 4 ? ipaddr.IPv4.parse(host.address) : ipaddr.IPv6.parse(host.address);
}

// ---------------------------------------------------------------------------------------------
// CIDRs
// ---------------------------------------------------------------------------------------------

function prefixMatches(bytes: readonly number[], cidr: Cidr): boolean {
  if (bytes.length !== cidr.bytes.length) return false;
  let bits = cidr.prefixLength;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((cidr.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * Parse one CIDR strictly: canonical dotted-decimal IPv4 or IPv6 network address, explicit prefix,
 * and no host bits set (`10.0.0.1/8` is refused, because an operator who typed it most likely meant
 * something narrower than the /8 it would silently become).
 */
export function parseCidr(entry: string): Cidr {
  const text = entry.trim();
  const slash = text.indexOf('/');
  if (slash < 0) throw new Error(`Invalid CIDR "${text}": missing "/prefix" (expected e.g. 10.0.0.0/8 or fd00::/8)`);
  const addressText = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) throw new Error(`Invalid CIDR "${text}": prefix length must be a decimal number`);
  const prefixLength = Number(prefixText);

  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(addressText)) {
    address = ipaddr.IPv4.parse(addressText);
  } else if (addressText.includes(':') && !addressText.includes('%') && ipaddr.IPv6.isValid(addressText)) {
    address = ipaddr.IPv6.parse(addressText);
  } else {
    throw new Error(`Invalid CIDR "${text}": "${addressText}" is not a dotted-decimal IPv4 or an IPv6 address`);
  }
  const family = address.kind() === 'ipv4' ? 4 : 6;
  const maxPrefix = family === 4 ? 32 : 128;
  if (prefixLength > maxPrefix)
    throw new Error(`Invalid CIDR "${text}": prefix length must be 0-${maxPrefix} for IPv${family}`);

  const bytes = address.toByteArray();
  const network: Cidr = {
    family,
    network: address.toString(),
    prefixLength,
    text: `${address.toString()}/${prefixLength}`,
    bytes,
  };
  // Host bits set <=> the address differs from itself masked to the prefix.
  const masked = bytes.map((b, i) => {
    const bitsLeft = prefixLength - i * 8;
    return bitsLeft >= 8 ? b : bitsLeft <= 0 ? 0 : b & ((0xff << (8 - bitsLeft)) & 0xff);
  });
  if (masked.some((b, i) => b !== bytes[i])) {
    const fixed = ipaddr.fromByteArray(masked).toString();
    throw new Error(`Invalid CIDR "${text}": host bits are set (did you mean ${fixed}/${prefixLength}?)`);
  }
  return network;
}

/**
 * Parse ALLOWED_TARGET_CIDRS, a comma-separated list such as `127.0.0.0/8,::1/128`.
 * Whitespace around entries and empty entries (`""`, trailing comma) are ignored; any invalid entry
 * throws an Error naming the entry, so a typo fails at startup instead of silently allowing nothing.
 */
export function parseCidrList(s: string): Cidr[] {
  if (typeof s !== 'string') throw new Error('ALLOWED_TARGET_CIDRS must be a string');
  const out: Cidr[] = [];
  for (const part of s.split(',')) {
    if (part.trim() === '') continue;
    try {
      out.push(parseCidr(part));
    } catch (err) {
      throw new Error(`ALLOWED_TARGET_CIDRS: ${(err as Error).message}`, { cause: err });
    }
  }
  return out;
}

/** True if `ip` (any accepted spelling) is inside `cidr`. */
export function cidrContains(cidr: Cidr, ip: string): boolean {
  return prefixMatches(toIp(ip).toByteArray(), cidr);
}

// ---------------------------------------------------------------------------------------------
// Classification
// ---------------------------------------------------------------------------------------------

type Table = ReadonlyArray<readonly [BlockedClass, Cidr]>;
const table = (rows: ReadonlyArray<readonly [BlockedClass, string]>): Table =>
  rows.map(([cls, c]) => [cls, parseCidr(c)] as const);

// First match wins, so the more specific 255.255.255.255 precedes the reserved 240.0.0.0/4.
const IPV4_BLOCKED = table([
  ['unspecified', '0.0.0.0/8'], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['loopback', '127.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  ['private', '172.16.0.0/12'],
  ['private', '192.168.0.0/16'],
  ['linkLocal', '169.254.0.0/16'], // includes cloud metadata 169.254.169.254
  ['carrierGradeNat', '100.64.0.0/10'],
  ['multicast', '224.0.0.0/4'],
  ['broadcast', '255.255.255.255/32'],
  ['reserved', '192.0.0.0/24'], // IETF protocol assignments
  ['reserved', '192.0.2.0/24'], // TEST-NET-1
  ['reserved', '192.88.99.0/24'], // deprecated 6to4 relay anycast
  ['reserved', '198.18.0.0/15'], // benchmarking
  ['reserved', '198.51.100.0/24'], // TEST-NET-2
  ['reserved', '203.0.113.0/24'], // TEST-NET-3
  ['reserved', '240.0.0.0/4'], // future use
]);

const IPV6_BLOCKED = table([
  ['linkLocal', 'fe80::/10'],
  ['private', 'fec0::/10'], // deprecated site-local: same semantics as RFC1918
  ['private', 'fc00::/7'], // unique local (ULA)
  ['multicast', 'ff00::/8'],
  ['reserved', '100::/64'], // discard-only
  ['reserved', '2001::/23'], // IETF protocol assignments (Teredo is unwrapped before this)
  ['reserved', '2001:db8::/32'], // documentation
  ['reserved', '3fff::/20'], // documentation (RFC 9637)
]);

const V6 = (c: string): Cidr => parseCidr(c);
const V4_MAPPED = V6('::ffff:0:0/96');
const V4_TRANSLATED = V6('::ffff:0:0:0/96'); // RFC 6145 / SIIT
const V4_COMPATIBLE = V6('::/96'); // deprecated (RFC 4291 §2.5.5.1)
const NAT64_WELL_KNOWN = V6('64:ff9b::/96');
const NAT64_LOCAL = V6('64:ff9b:1::/48'); // RFC 8215 local-use
const SIX_TO_FOUR = V6('2002::/16');
const TEREDO = V6('2001::/32');
const GLOBAL_UNICAST = V6('2000::/3'); // everything else in IPv6 is unallocated or special

interface Classification {
  cls: BlockedClass;
  /** Set when an IPv6 address was refused because of the IPv4 address it wraps. */
  embedded?: { ipv4: string; via: string };
}

function classifyV4Bytes(bytes: readonly number[]): BlockedClass | null {
  for (const [cls, cidr] of IPV4_BLOCKED) if (prefixMatches(bytes, cidr)) return cls;
  return null;
}

function classifyV6(bytes: readonly number[]): Classification | null {
  const tail = bytes.slice(12, 16);
  const all0 = bytes.every((b) => b === 0);
  if (all0) return { cls: 'unspecified' };
  if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) return { cls: 'loopback' };

  // Forms that wrap an IPv4 address. `publicVerdict` is what to return when the wrapped IPv4 is
  // public: null where the form is a legitimate way to reach that IPv4 host (mapped, NAT64, 6to4),
  // 'reserved' where the form is deprecated/non-routable and never a valid target.
  const wrapped = (v4: readonly number[], via: string, publicVerdict: BlockedClass | null): Classification | null => {
    const cls = classifyV4Bytes(v4);
    if (cls) return { cls, embedded: { ipv4: v4.join('.'), via } };
    return publicVerdict ? { cls: publicVerdict, embedded: { ipv4: v4.join('.'), via } } : null;
  };
  if (prefixMatches(bytes, V4_MAPPED)) return wrapped(tail, 'IPv4-mapped', null);
  if (prefixMatches(bytes, V4_TRANSLATED)) return wrapped(tail, 'IPv4-translated', 'reserved');
  if (prefixMatches(bytes, V4_COMPATIBLE)) return wrapped(tail, 'IPv4-compatible', 'reserved');
  if (prefixMatches(bytes, NAT64_WELL_KNOWN)) return wrapped(tail, 'NAT64', null);
  // Local-use NAT64 prefixes only mean something inside the operator's network, so they are refused
  // outright; the /96 embedding is only inspected to give a more precise reason.
  if (prefixMatches(bytes, NAT64_LOCAL)) return wrapped(tail, 'NAT64 local-use', 'reserved');
  if (prefixMatches(bytes, SIX_TO_FOUR)) return wrapped(bytes.slice(2, 6), '6to4', null);
  if (prefixMatches(bytes, TEREDO)) {
    // Teredo: bits 32-63 are the server IPv4, the last 32 bits the client IPv4 XOR 0xffffffff.
    const server = wrapped(bytes.slice(4, 8), 'Teredo server', null);
    if (server) return server;
    // Teredo is dead and lives inside the reserved 2001::/23, so a public-looking one is still refused.
    return wrapped(
      tail.map((b) => b ^ 0xff),
      'Teredo client',
      'reserved',
    );
  }

  for (const [cls, cidr] of IPV6_BLOCKED) if (prefixMatches(bytes, cidr)) return { cls };
  if (!prefixMatches(bytes, GLOBAL_UNICAST)) return { cls: 'reserved' };
  return null;
}

function classify(ip: string): Classification | null {
  const addr = toIp(ip);
  const bytes = addr.toByteArray();
  if (addr.kind() === 'ipv4') {
    const cls = classifyV4Bytes(bytes);
    return cls ? { cls } : null;
  }
  return classifyV6(bytes);
}

/**
 * Return the blocked class of an IP address (any spelling accepted by {@link normaliseHost}), or
 * `null` when it is public. IPv6 wrappers of IPv4 (IPv4-mapped, IPv4-compatible, NAT64, 6to4,
 * Teredo) are classified by the IPv4 address they carry. Throws an Error if `ip` is not an IP address.
 */
export function classifyAddress(ip: string): BlockedClass | null {
  return classify(ip)?.cls ?? null;
}

/**
 * An IPv4-mapped IPv6 address and its IPv4 form are the same socket destination, so both are matched
 * as IPv4: against IPv4 entries, or against IPv6 entries written inside ::ffff:0:0/96. A broad IPv6
 * entry such as `::/0` therefore does not quietly allow all of IPv4 (including 127.0.0.1) through its
 * mapped form. Other wrappers (NAT64, 6to4, ...) reach a gateway rather than the IPv4 host itself, so
 * they are matched only as the IPv6 addresses they are.
 */
function matchesAllowList(addr: ipaddr.IPv4 | ipaddr.IPv6, allowed: readonly Cidr[]): boolean {
  const bytes = addr.toByteArray();
  const v4 = addr.kind() === 'ipv4' ? bytes : prefixMatches(bytes, V4_MAPPED) ? bytes.slice(12, 16) : null;
  if (!v4) return allowed.some((cidr) => prefixMatches(bytes, cidr));
  const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
  return allowed.some((cidr) =>
    cidr.family === 4
      ? prefixMatches(v4, cidr)
      : cidr.prefixLength >= 96 && prefixMatches(cidr.bytes, V4_MAPPED) && prefixMatches(mapped, cidr),
  );
}

/**
 * Decide whether connecting to `ip` is permitted: allowed CIDRs first (the only escape hatch), then
 * the blocked classes. Never throws; anything unparseable is refused (fail closed).
 */
export function isAddressAllowed(ip: string, allowed: readonly Cidr[]): AddressVerdict {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = toIp(ip);
  } catch {
    return { ok: false, reason: `${JSON.stringify(ip)} is not a valid IP address` };
  }
  const canonical = addr.toString();
  if (matchesAllowList(addr, allowed)) return { ok: true };

  const c = classify(canonical);
  if (!c) return { ok: true };
  const what = `${/^[aeiou]/.test(c.cls) ? 'an' : 'a'} ${c.cls} address`;
  return {
    ok: false,
    reason: c.embedded
      ? `${canonical} embeds IPv4 ${c.embedded.ipv4} (${c.embedded.via}), ${what}`
      : `${canonical} is ${what}`,
  };
}

// ---------------------------------------------------------------------------------------------
// TCP targets
// ---------------------------------------------------------------------------------------------

/** Validate a TCP/UDP port: an integer 1-65535 (0 means "any port" to the OS and is never a target). */
export function isValidPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65535;
}

/**
 * Split a TCP target `host:port` or `[v6]:port` into its parts. The host is returned as written
 * (unbracketed for IPv6) and still needs {@link normaliseHost}. Unbracketed IPv6 is refused because
 * `::1:80` is ambiguous. Throws an Error with a user-facing message on bad input.
 */
export function parseHostPort(target: string): { host: string; port: number } {
  if (typeof target !== 'string' || target.length === 0)
    throw new Error('Target must be a non-empty "host:port" string');
  let host: string;
  let portText: string;
  if (target.startsWith('[')) {
    const close = target.indexOf(']');
    if (close < 0 || target[close + 1] !== ':') throw new Error(`Invalid target "${target}": expected "[ipv6]:port"`);
    host = target.slice(1, close);
    portText = target.slice(close + 2);
  } else {
    const colon = target.lastIndexOf(':');
    if (colon < 0) throw new Error(`Invalid target "${target}": missing ":port"`);
    host = target.slice(0, colon);
    portText = target.slice(colon + 1);
    if (host.includes(':'))
      throw new Error(`Invalid target "${target}": IPv6 addresses must be written as "[ipv6]:port"`);
  }
  if (host.length === 0) throw new Error(`Invalid target "${target}": missing host`);
  // Digits only: Number() would otherwise accept "0x50", "1e3" or " 80".
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!isValidPort(port)) throw new Error(`Invalid target "${target}": port must be a number from 1 to 65535`);
  return { host, port };
}
