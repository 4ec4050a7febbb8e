/**
 * The keys a caller's cards are verified with: the file keys (signatures.trustFiles and
 * `<dataDir>/trust/*.jwks`), read once per configuration, at start, and again on reload (SIGHUP),
 * and the managed keys (admin API, `cardgate trust`), read from the store on every request (a keyed
 * one reads them with its key) so a key added or revoked on one instance is in force on all at once.
 */
import type { Config } from '../../config.ts';
import type { AppDeps } from '../../deps.ts';
import type { SignaturePolicy } from '../../engine/index.ts';
import type { TrustedKey } from '../../engine/signatures/trusted-key.ts';
import { ConfigError } from '../../lib/config-error.ts';
import { jkuFetcher, type JkuFetcher } from './jku.ts';
import type { TrustKeyRecord } from '../../store/contract/trust-keys.ts';
import { managedKeysFor, trustedFromRecords } from './managed-keys.ts';
import { dataDirTrustFiles, readTrustFiles, type TrustFiles } from './trust-files.ts';

const fileKeys = new WeakMap<Config, Promise<TrustedKey[]>>();

const readConfigured = async (config: Config, addedAt: string): Promise<TrustFiles> =>
  readTrustFiles([...config.signatures.trustFiles, ...(await dataDirTrustFiles(config.dataDir))], addedAt);

/** Reads the file keys (at start): a bad file is a configuration error, as a bad setting is. */
export async function loadTrustFiles(deps: Pick<AppDeps, 'config' | 'clock'>): Promise<TrustedKey[]> {
  const read = await readConfigured(deps.config, new Date(deps.clock.now()).toISOString());
  if ('problem' in read) throw new ConfigError(read.problem);
  const keys = Promise.resolve(read.keys);
  fileKeys.set(deps.config, keys);
  return keys;
}

/** Reads the file keys again (SIGHUP); on a problem the keys in use stay and the problem is returned. */
export async function reloadTrustFiles(deps: Pick<AppDeps, 'config' | 'clock'>): Promise<{ keys: number } | { problem: string }> {
  const read = await readConfigured(deps.config, new Date(deps.clock.now()).toISOString());
  if ('problem' in read) return read;
  fileKeys.set(deps.config, Promise.resolve(read.keys));
  return { keys: read.keys.length };
}

/**
 * Keys trusted for the account's cards (or an anonymous caller's: the global ones only); `managed`:
 * the managed keys this request already read for the account (with its key), else read now.
 */
export async function trustedKeysFor(
  deps: Pick<AppDeps, 'config' | 'clock' | 'store'>,
  accountId: string | null,
  managed?: readonly TrustKeyRecord[],
): Promise<TrustedKey[]> {
  let loading = fileKeys.get(deps.config);
  if (loading === undefined) {
    // A file that cannot be read now is tried again on the next call rather than failing every one.
    loading = loadTrustFiles(deps).catch((e: unknown) => {
      fileKeys.delete(deps.config);
      throw e;
    });
    fileKeys.set(deps.config, loading);
  }
  const [files, managedKeys] = await Promise.all([loading, managed ? trustedFromRecords(managed, accountId) : managedKeysFor(deps.store, accountId)]);
  return [...files.filter((k) => k.accountId === null || k.accountId === accountId), ...managedKeys];
}

/** One jku fetcher (and its cache) per configuration, made on first use. */
const jkuFetchers = new WeakMap<Config, JkuFetcher>();

const jkuKeys = (deps: Pick<AppDeps, 'config' | 'clock' | 'log' | 'lookup'>, text: string): Promise<TrustedKey[]> => {
  let fetcher = jkuFetchers.get(deps.config);
  if (fetcher === undefined) {
    fetcher = jkuFetcher(deps.config, deps.log, () => deps.clock.now(), deps.lookup);
    jkuFetchers.set(deps.config, fetcher);
  }
  return fetcher.keysFor(text);
};

/**
 * What a caller's validations verify signatures with: its trusted keys (and, with signatures.fetchJku,
 * the keys at the jku URLs the body's signatures name) and the server's policy; plain data, for the workers.
 * `managed`: as for trustedKeysFor.
 */
export const signatureTrust = async (
  deps: Pick<AppDeps, 'config' | 'clock' | 'log' | 'lookup' | 'store'>,
  accountId: string | null,
  bodyText: string,
  managed?: readonly TrustKeyRecord[],
): Promise<SignaturePolicy> => ({
  keys: [...(await trustedKeysFor(deps, accountId, managed)), ...(deps.config.signatures.fetchJku ? await jkuKeys(deps, bodyText) : [])],
  allowedAlgorithms: deps.config.signatures.allowedAlgorithms,
  requireSignature: deps.config.signatures.requireSignature,
});
