/**
 * The key under which an anonymous caller's daily quota and webhook limits are counted.
 */
import { isIPv6 } from 'node:net';
import { ipv6Groups } from '../../lib/ip.ts';

/**
 * IPv6 callers are counted per /56, the usual smallest allocation to one customer: counting
 * per address would let anyone with a /64 pick a fresh address for every call.
 */
export const ipLimitKey = (ip: string): string => {
  if (!isIPv6(ip)) return ip;
  const g = ipv6Groups(ip);
  const groups = [g[0]!, g[1]!, g[2]!, g[3]! & 0xff00].map((x) => x.toString(16));
  return `${groups.join(':')}::/56`;
};

/**
 * Whose share of the validation workers a task counts against (the pool serves callers in turn):
 * its account's; else its caller's address, counted as the limits count it; else (a keyless
 * webhook job, which keeps no address) the keyless jobs' together.
 */
export const workerShare = (accountId: string | null, ip?: string): string =>
  accountId !== null ? `account ${accountId}` : ip !== undefined ? `address ${ipLimitKey(ip)}` : 'keyless jobs';
