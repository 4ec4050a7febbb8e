/**
 * Client IP addresses: normalising what sockets and X-Forwarded-For give us,
 * and matching IPs against IP/CIDR lists (trusted proxies, team-key allow-lists).
 */
import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

/** What the service calls a caller whose address it cannot read (no socket, e.g. in-process tests). */
export const UNKNOWN_IP = 'unknown';

/** Removes brackets, a port and an IPv6 zone id: `[::1]:80` → `::1`, `1.2.3.4:5` → `1.2.3.4`. */
const stripDecorations = (raw: string): string => {
  let s = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(s);
  if (bracketed) s = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  const zone = s.indexOf('%');
  return zone === -1 ? s : s.slice(0, zone);
};

/** The eight 16-bit groups of a valid IPv6 address (an embedded IPv4 tail is folded in). */
export const ipv6Groups = (ip: string): number[] => {
  let s = ip.toLowerCase();
  const v4Tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (v4Tail) {
    const [a, b, c, d] = v4Tail.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, v4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].map((g) => parseInt(g, 16));
};

/**
 * A bare, canonical-enough IP address, or undefined when `raw` is not one.
 * IPv4-mapped IPv6 (`::ffff:1.2.3.4`) becomes plain IPv4 so both forms count as one caller.
 */
export const normalizeIp = (raw: string | undefined | null): string | undefined => {
  if (!raw) return undefined;
  const s = stripDecorations(raw);
  if (isIPv4(s)) return s;
  if (!isIPv6(s)) return undefined;
  const g = ipv6Groups(s);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join('.');
  }
  return s.toLowerCase();
};

/**
 * Checks one IP or CIDR rule (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`) and returns it
 * normalised, or throws an Error whose message says what is wrong.
 */
export const parseIpRule = (rule: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6'; text: string } => {
  const [rawAddress = '', rawPrefix, extra] = rule.trim().split('/');
  // Bare addresses only: no brackets, ports or zone ids in a rule.
  const address = isIP(rawAddress) ? normalizeIp(rawAddress) : undefined;
  if (!address || rawAddress.includes('%') || extra !== undefined) throw new Error(`"${rule}" is not an IP address or CIDR`);
  const family = isIPv4(address) ? 'ipv4' : 'ipv6';
  const max = family === 'ipv4' ? 32 : 128;
  // A mapped IPv6 rule (::ffff:10.0.0.0/104) became IPv4: shift its prefix accordingly.
  const mappedShift = family === 'ipv4' && isIPv6(rawAddress) ? 96 : 0;
  let prefix = max;
  if (rawPrefix !== undefined) {
    if (!/^\d{1,3}$/.test(rawPrefix)) throw new Error(`"${rule}" has an invalid prefix length`);
    prefix = Number(rawPrefix) - mappedShift;
    if (prefix < 0 || prefix > max) throw new Error(`"${rule}" has a prefix length outside 0..${max + mappedShift}`);
  }
  return { address, prefix, family, text: prefix === max ? address : `${address}/${prefix}` };
};

/** A predicate "is this IP in the list?" for a list of IPs/CIDRs (throws on an invalid entry). */
export const ipMatcher = (rules: readonly string[]): ((ip: string) => boolean) => {
  if (rules.length === 0) return () => false;
  const list = new BlockList();
  for (const rule of rules) {
    const { address, prefix, family } = parseIpRule(rule);
    list.addSubnet(address, prefix, family);
  }
  return (ip) => {
    const address = normalizeIp(ip);
    if (!address) return false;
    return list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
  };
};

/**
 * The client IP: the socket address, unless that address is a trusted proxy; then
 * X-Forwarded-For is walked right to left, skipping trusted hops, and the first
 * untrusted hop is the client. (The leftmost entries are whatever the client wrote,
 * so they are never believed past an untrusted hop.) A malformed hop ends the walk.
 */
export const resolveClientIp = (
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  isTrustedProxy: (ip: string) => boolean,
): string => {
  const peer = normalizeIp(socketAddress);
  if (!peer) return UNKNOWN_IP;
  if (!forwardedFor || !isTrustedProxy(peer)) return peer;
  let client = peer;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalizeIp(hops[i]);
    if (!hop) break;
    client = hop;
    if (!isTrustedProxy(hop)) break;
  }
  return client;
};
