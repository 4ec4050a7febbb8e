/**
 * The DNS lookup of every outbound connection made on a caller's behalf (webhook callbacks,
 * cards fetched by URL). node:http/https `request` takes a `lookup` option and connects to the
 * address it returns, so checking the addresses inside it leaves no DNS-rebinding window: the
 * address checked is the address connected to. The Host header and TLS SNI stay the hostname.
 * Literal IPs skip lookup: check them up front with the URL (AddressPolicy.refuseUrl).
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy.ts';

/** The connection was refused by the policy; its message says why. */
export class RefusedAddress extends Error {}

/** A lookup that resolves every address, refuses the connection if any of them is refused, and connects to a checked one. */
export const checkedLookup = (policy: AddressPolicy, resolve: LookupFunction): LookupFunction => (hostname, options, callback) => {
  resolve(hostname, { ...options, all: true }, (err, result, family) => {
    if (err) return callback(err, '', 0);
    const addresses: LookupAddress[] = Array.isArray(result) ? result : [{ address: result, family: family ?? 4 }];
    if (addresses.length === 0) return callback(new Error(`${hostname} has no addresses`), '', 0);
    for (const { address } of addresses) {
      const reason = policy.refuseAddress(address, hostname);
      if (reason) return callback(new RefusedAddress(`${hostname} resolves to a refused address: ${reason}`), '', 0);
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** What a failed connection means to a person: refused by the policy, unresolvable, refused by the host, or the error itself. */
export const describeConnectError = (err: NodeJS.ErrnoException, url: URL): string => {
  if (err instanceof RefusedAddress) return err.message;
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return `cannot resolve ${url.hostname}`;
  if (err.code === 'ECONNREFUSED') return `connection refused by ${url.host}`;
  return err.message || String(err.code ?? 'connection failed');
};
