/**
 * Which hosts the service may connect to on a caller's behalf (SSRF protection): webhook
 * callbacks (`webhooks.allowedHosts`) and cards fetched by URL (`cardFetch.allowedHosts`).
 *
 * Public unicast addresses are allowed. Everything else is refused unless
 * the allow-list lets it through, with Gitea's vocabulary:
 *   - `loopback`            127.0.0.0/8 and ::1 (CI sidecars)
 *   - `private`             10/8, 172.16/12, 192.168/16, fc00::/7 (on-prem LANs)
 *   - a CIDR or an address  `10.1.2.0/24`, `fd00::/8`, `10.1.2.3`
 *   - a hostname            `hooks.corp.example`, or `*.corp.example` for its subdomains;
 *                           a matching host may resolve to any address
 *   - a host and a port     `hooks.corp.example:8443`, `10.1.2.3:8080`, `[fd00::1]:8443`: that
 *                           host on that port only
 *   - `*`                   anything (not recommended)
 *
 * An entry without a port admits every port of what it names for a URL given directly. A redirect
 * to another host or port than the URL given is followed only where a `host:port` entry (or `*`)
 * admits it, or to a public address: `["localhost"]` does not let localhost:8080 send the fetch
 * on to localhost:9090.
 *
 * An IPv6 address that embeds an IPv4 address (mapped, translated, compatible,
 * NAT64, 6to4, Teredo, ISATAP) is judged as that IPv4 address, since that is
 * where a translator or tunnel sends the traffic; when it embeds several (or the
 * embedding is ambiguous), it is refused if any of them would be.
 *
 * The check runs on the literal host at submission and, for hostnames, on every
 * resolved address at connect time (see pinned-lookup.ts), so the address
 * checked is the address connected to.
 */
import { isIP } from 'node:net';
import { ConfigError } from './config-error.ts';
import { ipv6Groups } from './ip.ts';

type Bytes = number[];

/** The 4 (IPv4) or 16 (IPv6) bytes of a well-formed address. */
const addressBytes = (address: string): Bytes =>
  address.includes(':') ? ipv6Groups(address).flatMap((group) => [group >> 8, group & 0xff]) : address.split('.').map(Number);

/** The 4 (IPv4) or 16 (IPv6) bytes of an address; undefined when it is not one. */
const parseAddress = (text: string): Bytes | undefined => {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // brackets, zone id
  return isIP(address) === 0 ? undefined : addressBytes(address);
};

interface Cidr {
  bytes: Bytes;
  bits: number;
}

const parseCidr = (text: string): Cidr | undefined => {
  const [addr, len, extra] = text.split('/');
  if (extra !== undefined || addr === undefined) return undefined;
  const bytes = parseAddress(addr);
  if (!bytes) return undefined;
  const max = bytes.length * 8;
  const bits = len === undefined ? max : /^\d{1,3}$/.test(len) ? Number(len) : NaN;
  return bits >= 0 && bits <= max ? { bytes, bits } : undefined;
};

const inCidr = (bytes: Bytes, cidr: Cidr): boolean => {
  if (bytes.length !== cidr.bytes.length) return false;
  for (let bit = 0; bit < cidr.bits; bit += 8) {
    const take = Math.min(8, cidr.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (cidr.bytes[bit / 8]! & mask)) return false;
  }
  return true;
};

/**
 * A range written in this file (well-formed, with its length), read without isIP: node:net's IPv6
 * check, run more than once while the binary's start-up snapshot is built, makes V8 fail to write it.
 */
const cidr = (text: string): Cidr => {
  const [address, bits] = text.split('/') as [string, string];
  return { bytes: addressBytes(address), bits: Number(bits) };
};

type Category = 'loopback' | 'private' | 'other';

/** Non-public ranges: the first match names the reason. */
const blockedRanges: Array<{ range: Cidr; name: string; category: Category }> = [
  ['0.0.0.0/8', 'unspecified ("this network")', 'other'],
  ['10.0.0.0/8', 'private', 'private'],
  ['100.64.0.0/10', 'shared address space (CGNAT)', 'other'],
  ['127.0.0.0/8', 'loopback', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata)', 'other'],
  ['172.16.0.0/12', 'private', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments', 'other'],
  ['192.0.2.0/24', 'documentation', 'other'],
  ['192.88.99.0/24', '6to4 relay anycast', 'other'],
  ['192.168.0.0/16', 'private', 'private'],
  ['198.18.0.0/15', 'benchmarking', 'other'],
  ['198.51.100.0/24', 'documentation', 'other'],
  ['203.0.113.0/24', 'documentation', 'other'],
  ['224.0.0.0/4', 'multicast', 'other'],
  ['255.255.255.255/32', 'broadcast', 'other'],
  ['240.0.0.0/4', 'reserved', 'other'],
  ['::/128', 'unspecified', 'other'],
  ['::1/128', 'loopback', 'loopback'],
  ['100::/64', 'discard-only', 'other'],
  ['2001::/23', 'IETF protocol assignments', 'other'],
  ['2001:db8::/32', 'documentation', 'other'],
  ['3fff::/20', 'documentation', 'other'],
  ['5f00::/16', 'SRv6 segment identifiers', 'other'],
  ['fc00::/7', 'private (unique local)', 'private'],
  ['fe80::/10', 'link-local', 'other'],
  ['fec0::/10', 'site-local (deprecated)', 'other'],
  ['ff00::/8', 'multicast', 'other'],
].map(([range, name, category]) => ({ range: cidr(range!), name: name!, category: category as Category }));

/** An IPv4 address found inside an IPv6 address, with the form it was found by. */
interface Embedded {
  form: string;
  ipv4: Bytes;
}

const lastFour = (bytes: Bytes): Bytes => bytes.slice(12);
const pick = (bytes: Bytes, at: number[]): Bytes => at.map((i) => bytes[i]!);
const lastFourAs = (form: string) => (bytes: Bytes): Embedded[] => [{ form, ipv4: lastFour(bytes) }];

const mapped = cidr('::ffff:0:0/96');

/** IPv6 ranges whose addresses carry an IPv4 address; such an address is judged by what it carries only. */
const embeddingRanges: Array<{ range: Cidr; embedded: (bytes: Bytes) => Embedded[] }> = [
  { range: mapped, embedded: lastFourAs('IPv4-mapped') },
  { range: cidr('::ffff:0:0:0/96'), embedded: lastFourAs('IPv4-translated') },
  // ::/127 (unspecified and loopback) is excluded below: those are IPv6's own.
  { range: cidr('::/96'), embedded: lastFourAs('IPv4-compatible') },
  { range: cidr('64:ff9b::/96'), embedded: lastFourAs('NAT64') },
  // A local-use NAT64 prefix is /48 to /96 inside 64:ff9b:1::/48, and its length decides where the IPv4
  // address sits (skipping bits 64-71): unknown here, so every placement is judged.
  {
    range: cidr('64:ff9b:1::/48'),
    embedded: (b) =>
      ([[48, [6, 7, 9, 10]], [56, [7, 9, 10, 11]], [64, [9, 10, 11, 12]], [96, [12, 13, 14, 15]]] as const).map(([prefix, at]) => ({
        form: `local-use NAT64 with a /${prefix} prefix`,
        ipv4: pick(b, [...at]),
      })),
  },
  { range: cidr('2002::/16'), embedded: (b) => [{ form: '6to4', ipv4: pick(b, [2, 3, 4, 5]) }] },
  // Teredo: the server's address in bits 32-63, the client's (bit-inverted) in the last 32 bits.
  {
    range: cidr('2001::/32'),
    embedded: (b) => [
      { form: 'Teredo server', ipv4: pick(b, [4, 5, 6, 7]) },
      { form: 'Teredo client', ipv4: lastFour(b).map((x) => x ^ 0xff) },
    ],
  },
];

const unspecifiedOrLoopback = cidr('::/127');

/** An ISATAP interface id (any prefix): 0000:5efe or 0200:5efe (either u/g bit) then the IPv4 address. */
const isatapIpv4 = (b: Bytes): Bytes | undefined =>
  (b[8]! & 0xfc) === 0 && b[9] === 0 && b[10] === 0x5e && b[11] === 0xfe ? lastFour(b) : undefined;

/**
 * The IPv4 addresses an IPv6 address stands for, and whether its range is an embedding
 * form (judged by those addresses alone) rather than an ordinary range with an ISATAP id.
 */
const embeddedIpv4s = (bytes: Bytes): { embedded: Embedded[]; embeddingRange: boolean } => {
  const embedded: Embedded[] = [];
  const range = inCidr(bytes, unspecifiedOrLoopback) ? undefined : embeddingRanges.find((e) => inCidr(bytes, e.range));
  if (range) embedded.push(...range.embedded(bytes));
  const isatap = isatapIpv4(bytes);
  if (isatap) embedded.push({ form: 'ISATAP', ipv4: isatap });
  return { embedded, embeddingRange: range !== undefined };
};

interface AllowList {
  all: boolean;
  loopback: boolean;
  private: boolean;
  cidrs: Cidr[];
  hosts: string[];
  /** `*.corp.example` stored as `.corp.example`. */
  hostSuffixes: string[];
  /** `host:port` entries: a hostname or an address (as a one-address range), admitted on that port only. */
  ports: Array<{ port: number; host?: string; range?: Cidr }>;
}

/** `name:port` or `[ipv6]:port`, the port 1-65535. */
const withPort = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/;

/** A `host:port` entry, or undefined when the entry is not one. */
const parsePortEntry = (entry: string): AllowList['ports'][number] | undefined => {
  const m = withPort.exec(entry);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65535) return undefined;
  const host = m[1] ?? m[2]!;
  const bytes = parseAddress(host);
  if (bytes) return { port, range: { bytes, bits: bytes.length * 8 } };
  return m[1] === undefined && hostnamePattern.test(host) && !host.startsWith('*.') ? { port, host } : undefined;
};

/**
 * The list as it applies to one connection: on `port` (undefined: any port, only entries without
 * one) and, for a redirect away from the URL given, with only its `host:port` entries and `*`.
 */
const listFor = (allow: AllowList, port: number | undefined, redirected: boolean): AllowList => {
  const onPort = allow.ports.filter((p) => p.port === port);
  const hosts = onPort.flatMap((p) => (p.host ? [p.host] : []));
  const cidrs = onPort.flatMap((p) => (p.range ? [p.range] : []));
  return redirected
    ? { all: allow.all, loopback: false, private: false, cidrs, hosts, hostSuffixes: [], ports: [] }
    : { ...allow, cidrs: [...allow.cidrs, ...cidrs], hosts: [...allow.hosts, ...hosts], ports: [] };
};

/** The port a URL connects to. */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** `::ffff:10.0.0.0/104` names the IPv4 range 10.0.0.0/8; IPv4-mapped addresses are judged as IPv4. */
const asIpv4IfMapped = (range: Cidr): Cidr =>
  range.bits >= 96 && inCidr(range.bytes, mapped) ? { bytes: lastFour(range.bytes), bits: range.bits - 96 } : range;

const hostnamePattern = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** What a policy guards, for its refusals: the URL's field, the connections, the setting that allows more. */
export interface PolicyUse {
  field: string;
  connections: string;
  setting: string;
}

/** Reads an allow-list (`use.setting`); a bad entry is a ConfigError naming it. */
export const parseAllowedHosts = (entries: readonly string[], use: PolicyUse): AllowList => {
  const list: AllowList = { all: false, loopback: false, private: false, cidrs: [], hosts: [], hostSuffixes: [], ports: [] };
  entries.forEach((raw, i) => {
    const entry = raw.trim().toLowerCase();
    const range = parseCidr(entry);
    const onPort = range ? undefined : parsePortEntry(entry);
    if (entry === '*') list.all = true;
    else if (entry === 'loopback') list.loopback = true;
    else if (entry === 'private') list.private = true;
    else if (entry === 'external') return; // public addresses: always allowed
    else if (range) list.cidrs.push(asIpv4IfMapped(range));
    else if (onPort) list.ports.push(onPort.range ? { ...onPort, range: asIpv4IfMapped(onPort.range) } : onPort);
    else if (hostnamePattern.test(entry)) {
      if (entry.startsWith('*.')) list.hostSuffixes.push(entry.slice(1));
      else list.hosts.push(entry);
    } else {
      throw new ConfigError(
        `invalid configuration:\n  ${use.setting}.${i}: "${raw}" is not loopback, private, external, *, a CIDR, an address or a hostname (*.example.com allowed), or a host or address with a port (host:8443, [::1]:8443)`,
      );
    }
  });
  return list;
};

export interface AddressPolicy {
  /** Why connecting to `address` (reached through `hostname`) is refused; undefined when allowed. */
  refuseAddress(address: string, hostname?: string): string | undefined;
  /** Why a submitted URL is refused; undefined when acceptable (hostnames are checked again at connect time). */
  refuseUrl(url: string): string | undefined;
  /**
   * The policy for the connections to `url` (well-formed): its port's entries apply; `redirected`:
   * a redirect took the fetch there, away from the host and port given, so only `host:port`
   * entries (and `*`) admit what is not public.
   */
  forUrl(url: URL, redirected: boolean): AddressPolicy;
}

const maxUrlLength = 2048;

export const createAddressPolicy = (allowedHosts: readonly string[], use: PolicyUse): AddressPolicy => {
  const allow = parseAllowedHosts(allowedHosts, use);
  const policyOf = (port: number | undefined, redirected: boolean): AddressPolicy => {
    const list = listFor(allow, port, redirected);
    const { refuseAddress, refuseUrl } = checksOf(list, use, redirected);
    return { refuseAddress, refuseUrl, forUrl: (url, away) => policyOf(portOf(url), away) };
  };
  const unbound = policyOf(undefined, false);
  // A URL given directly is judged with its own port's entries.
  const refuseUrl = (text: string): string | undefined => {
    const first = unbound.refuseUrl(text);
    return first === undefined || !URL.canParse(text) ? first : policyOf(portOf(new URL(text)), false).refuseUrl(text);
  };
  return { ...unbound, refuseUrl };
};

/** The checks of one list (see listFor). */
const checksOf = (allow: AllowList, use: PolicyUse, redirected: boolean): Pick<AddressPolicy, 'refuseAddress' | 'refuseUrl'> => {
  const hostAllowed = (hostname: string): boolean => {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    return allow.hosts.includes(host) || allow.hostSuffixes.some((suffix) => host.endsWith(suffix));
  };
  const setting = redirected ? `${use.setting} lists it with this port (host:port)` : `${use.setting} lists`;

  const refuseBytes = (bytes: Bytes, shown: string): string | undefined => {
    if (allow.all) return undefined;
    const { embedded, embeddingRange } = embeddedIpv4s(bytes);
    for (const { form, ipv4 } of embedded) {
      const inner = refuseBytes(ipv4, ipv4.join('.'));
      if (inner) return `address ${shown} (${form}) stands for ${ipv4.join('.')}, and ${inner}`;
    }
    if (embeddingRange || allow.cidrs.some((range) => inCidr(bytes, range))) return undefined;
    const blocked = blockedRanges.find((b) => inCidr(bytes, b.range));
    if (!blocked) return undefined;
    if ((blocked.category === 'loopback' && allow.loopback) || (blocked.category === 'private' && allow.private)) return undefined;
    if (redirected) return `address ${shown} is ${blocked.name}; a redirect to it is followed only when ${setting}`;
    const hint = blocked.category === 'other' ? 'a CIDR' : `"${blocked.category}" or a CIDR`;
    return `address ${shown} is ${blocked.name}; ${use.connections} to it are refused unless ${setting} ${hint}`;
  };

  const refuseAddress = (address: string, hostname?: string): string | undefined => {
    if (hostname !== undefined && hostAllowed(hostname)) return undefined;
    const bytes = parseAddress(address);
    if (!bytes) return `"${address}" is not an IP address`;
    return refuseBytes(bytes, address.replace(/^\[|\]$/g, ''));
  };

  const refuseUrl = (text: string): string | undefined => {
    const mustBe = `${use.field} must be an absolute http(s) URL`;
    if (text.length > maxUrlLength) return `${use.field} is longer than ${maxUrlLength} characters`;
    if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return mustBe;
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return mustBe;
    // The URL parser has already turned forms like http://2130706433/ into 127.0.0.1.
    if (!parseAddress(url.hostname)) return undefined;
    const reason = refuseAddress(url.hostname);
    return reason && `${use.field} refused: ${reason}`;
  };

  return { refuseAddress, refuseUrl };
};
