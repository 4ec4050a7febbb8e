/**
 * Which callback targets the service may connect to (SSRF protection, decisions §8).
 *
 * Public unicast addresses are allowed. Everything else is refused unless
 * `webhooks.allowedHosts` lets it through, with Gitea's vocabulary:
 *   - `loopback`            127.0.0.0/8 and ::1 (CI sidecars)
 *   - `private`             10/8, 172.16/12, 192.168/16, fc00::/7 (on-prem LANs)
 *   - a CIDR or an address  `10.1.2.0/24`, `fd00::/8`, `10.1.2.3`
 *   - a hostname            `hooks.corp.example`, or `*.corp.example` for its subdomains;
 *                           a matching host may resolve to any address
 *   - `*`                   anything (not recommended)
 *
 * The check runs on the literal host at submission and, for hostnames, on every
 * resolved address at connect time (see src/jobs/deliver.ts), so the address
 * checked is the address connected to.
 */
import { isIP } from 'node:net';
import { ConfigError } from '../config.ts';
import { ipv6Groups } from './client-ip.ts';

type Bytes = number[];

/** The 4 (IPv4) or 16 (IPv6) bytes of an address; undefined when it is not one. */
const parseAddress = (text: string): Bytes | undefined => {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // brackets, zone id
  const kind = isIP(address);
  if (kind === 4) return address.split('.').map(Number);
  if (kind !== 6) return undefined;
  return ipv6Groups(address).flatMap((group) => [group >> 8, group & 0xff]);
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

const cidr = (text: string): Cidr => parseCidr(text)!;

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
  ['::/96', 'IPv4-compatible (deprecated)', 'other'],
  ['64:ff9b:1::/48', 'local-use NAT64', 'other'],
  ['100::/64', 'discard-only', 'other'],
  ['2001::/23', 'IETF protocol assignments (incl. Teredo)', 'other'],
  ['2001:db8::/32', 'documentation', 'other'],
  ['3fff::/20', 'documentation', 'other'],
  ['5f00::/16', 'SRv6 segment identifiers', 'other'],
  ['fc00::/7', 'private (unique local)', 'private'],
  ['fe80::/10', 'link-local', 'other'],
  ['fec0::/10', 'site-local (deprecated)', 'other'],
  ['ff00::/8', 'multicast', 'other'],
].map(([range, name, category]) => ({ range: cidr(range!), name: name!, category: category as Category }));

const mapped = cidr('::ffff:0:0/96');
const nat64 = cidr('64:ff9b::/96');
const sixToFour = cidr('2002::/16');

/**
 * The IPv4 address an IPv6 address stands for, when it embeds one: IPv4-mapped
 * (canonicalised), NAT64 and 6to4 (their IPv4 part is where traffic really goes).
 */
const embeddedIpv4 = (bytes: Bytes): Bytes | undefined => {
  if (bytes.length !== 16) return undefined;
  if (inCidr(bytes, mapped) || inCidr(bytes, nat64)) return bytes.slice(12);
  if (inCidr(bytes, sixToFour)) return bytes.slice(2, 6);
  return undefined;
};

interface AllowList {
  all: boolean;
  loopback: boolean;
  private: boolean;
  cidrs: Cidr[];
  hosts: string[];
  /** `*.corp.example` stored as `.corp.example`. */
  hostSuffixes: string[];
}

const hostnamePattern = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Reads `webhooks.allowedHosts`; a bad entry is a ConfigError naming it. */
export const parseAllowedHosts = (entries: readonly string[]): AllowList => {
  const list: AllowList = { all: false, loopback: false, private: false, cidrs: [], hosts: [], hostSuffixes: [] };
  entries.forEach((raw, i) => {
    const entry = raw.trim().toLowerCase();
    const range = parseCidr(entry);
    if (entry === '*') list.all = true;
    else if (entry === 'loopback') list.loopback = true;
    else if (entry === 'private') list.private = true;
    else if (entry === 'external') return; // public addresses: always allowed
    else if (range) list.cidrs.push(range);
    else if (hostnamePattern.test(entry)) {
      if (entry.startsWith('*.')) list.hostSuffixes.push(entry.slice(1));
      else list.hosts.push(entry);
    } else {
      throw new ConfigError(
        `invalid configuration:\n  webhooks.allowedHosts.${i}: "${raw}" is not loopback, private, external, *, a CIDR, an address or a hostname (*.example.com allowed)`,
      );
    }
  });
  return list;
};

export interface CallbackPolicy {
  /** Why connecting to `address` (reached through `hostname`) is refused; undefined when allowed. */
  refuseAddress(address: string, hostname?: string): string | undefined;
  /** Why a submitted callback_url is refused; undefined when acceptable (hostnames are checked again at delivery). */
  refuseUrl(url: string): string | undefined;
}

const maxUrlLength = 2048;

export const createCallbackPolicy = (allowedHosts: readonly string[]): CallbackPolicy => {
  const allow = parseAllowedHosts(allowedHosts);

  const hostAllowed = (hostname: string): boolean => {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    return allow.hosts.includes(host) || allow.hostSuffixes.some((suffix) => host.endsWith(suffix));
  };

  const refuseBytes = (bytes: Bytes, shown: string): string | undefined => {
    if (allow.all || allow.cidrs.some((range) => inCidr(bytes, range))) return undefined;
    const v4 = embeddedIpv4(bytes);
    if (v4) {
      const inner = refuseBytes(v4, v4.join('.'));
      return inner && `address ${shown} stands for ${v4.join('.')}, and ${inner}`;
    }
    const blocked = blockedRanges.find((b) => inCidr(bytes, b.range));
    if (!blocked) return undefined;
    if ((blocked.category === 'loopback' && allow.loopback) || (blocked.category === 'private' && allow.private)) return undefined;
    const hint = blocked.category === 'other' ? 'a CIDR' : `"${blocked.category}" or a CIDR`;
    return `address ${shown} is ${blocked.name}; callbacks to it are refused unless webhooks.allowedHosts lists ${hint}`;
  };

  const refuseAddress = (address: string, hostname?: string): string | undefined => {
    if (hostname !== undefined && hostAllowed(hostname)) return undefined;
    const bytes = parseAddress(address);
    if (!bytes) return `"${address}" is not an IP address`;
    return refuseBytes(bytes, address.replace(/^\[|\]$/g, ''));
  };

  const refuseUrl = (text: string): string | undefined => {
    const mustBe = 'callback_url must be an absolute http(s) URL';
    if (text.length > maxUrlLength) return `callback_url is longer than ${maxUrlLength} characters`;
    if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return mustBe;
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return mustBe;
    // The URL parser has already turned forms like http://2130706433/ into 127.0.0.1.
    if (!parseAddress(url.hostname)) return undefined;
    const reason = refuseAddress(url.hostname);
    return reason && `callback_url refused: ${reason}`;
  };

  return { refuseAddress, refuseUrl };
};
