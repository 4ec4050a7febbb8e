/**
 * Prepares a store offline (before a server uses it): a pro account with one key, and optionally
 * many stored reports. A data directory for the black-box tests and bench/http.ts; a database for
 * bench/pg.ts.
 */
import { readFileSync } from 'node:fs';
import { iso, systemClock } from '../../src/lib/clock.ts';
import { parseConfig } from '../../src/config.ts';
import { createKey } from '../../src/features/accounts/api-keys.ts';
import { validationSettings } from '../../src/features/validation/card-result.ts';
import { newId } from '../../src/lib/ids.ts';
import { validateSingleText } from '../../src/features/validation/validation.ts';
import { openFileStore } from '../../src/store/file/file-store.ts';
import type { Plan } from '../../src/store/contract/accounts.ts';
import type { Store } from '../../src/store/contract/store.ts';

/** The A2A 0.3.0 sample card (~3.6 KB), declared as 0.3.0. */
export const sampleCard = (): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL('../api/sample-card.json', import.meta.url), 'utf8'));

export interface SeedOptions {
  plan?: Plan;
  reports?: number;
}

/** Creates an account on `plan` with a key (and `reports` reports of the sample card) in the data dir; returns the key. */
export const prepareDataDir = async (dataDir: string, options: SeedOptions = {}): Promise<string> => {
  const store = await openFileStore({ dataDir });
  try {
    return await seedStore(store, options);
  } finally {
    await store.close();
  }
};

/** Creates an account on `plan` with a key (and `reports` reports of the sample card) in an open store; returns the key. */
export const seedStore = async (store: Store, options: SeedOptions = {}): Promise<string> => {
  const now = systemClock.now();
  const accountId = newId('acct', now);
  await store.createAccount({ id: accountId, name: 'seed', plan: options.plan ?? 'pro', created_at: iso(now) });
  const { secret } = await createKey(store, accountId, { name: 'seed' }, parseConfig({}).keys, now);
  const reports = options.reports ?? 0;
  // Stored as POST /v1/validate stores them: the request and result text verbatim.
  const requestJson = JSON.stringify({ agent_card: sampleCard() });
  const outcome = validateSingleText(requestJson, validationSettings(parseConfig({})));
  if ('agentUrl' in outcome) throw new Error('the seed card is in the body');
  const { version, resultJson, valid, score } = outcome;
  for (let i = 0; i < reports; i++) {
    const at = now - (reports - i); // one ms apart, well inside the retention period
    await store.putReport({ id: newId('rpt', at), kind: 'single', created_at: iso(at), account_id: accountId, version, requestJson, resultJson, verdict: { valid, score } });
    if (i % 5000 === 4999) await store.commit();
  }
  await store.commit();
  return secret;
};
