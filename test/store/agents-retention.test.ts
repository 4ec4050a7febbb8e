/**
 * The file engine keeps an agent's latest report past `retentionDays`: retention deletes the
 * expired reports that no agent holds as its latest, and a restart reads the kept one back (its
 * agent row says it is kept).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeClock } from '../support/fake-time.ts';
import { openFileStore, type FileStoreOptions } from '../../src/store/file/file-store.ts';
import { T0, iso, report } from './fixtures/records.ts';
import { tempDirFactory } from '../support/temp.ts';

const DAY = 86_400_000;
const tempDir = tempDirFactory('cardgate-agents-retention-');
const open = (dataDir: string, over: Partial<FileStoreOptions> = {}) => openFileStore({ dataDir, ...over });

test("file engine: an agent's latest report survives retention and a restart; export carries it", async () => {
  const dir = tempDir();
  const clock = new FakeClock(T0);
  const s = await open(dir, { clock, retentionDays: 30 });
  await s.createAccount({ id: 'acc_1', name: 'One', plan: 'pro', created_at: iso(T0) });
  await s.ensureAgent({ id: 'agt_1', account_id: 'acc_1', name: 'a', first_seen: iso(T0), badge_token: 't' });
  for (let i = 0; i < 6; i++) await s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * DAY) }));
  await s.recordAgentReport({ agent_id: 'agt_1', report_id: 'rpt_0', created_at: iso(T0), valid: true, score: 90, errors: 0, warnings: 0, branch: null });
  await s.commit();
  clock.set(T0 + 32.5 * DAY); // reports 0-2 are older than 30 days now
  assert.equal((await s.getReport('rpt_0'))?.id, 'rpt_0', 'expired, still read: the agent keeps it');
  assert.equal(await s.getReport('rpt_1'), undefined);
  assert.equal(await s.pruneReports(T0 + 2.5 * DAY), 2, 'rpt_1 and rpt_2 go');
  await s.commit();
  assert.equal((await s.getReport('rpt_0'))?.id, 'rpt_0');
  const exported: string[] = [];
  for await (const row of s.exportRows()) if (row.table === 'reports') exported.push(JSON.parse(row.line).id);
  assert.deepEqual(exported.sort(), ['rpt_0', 'rpt_3', 'rpt_4', 'rpt_5']);
  await s.close();

  const s2 = await open(dir, { clock, retentionDays: 30 });
  assert.equal((await s2.getReport('rpt_0'))?.id, 'rpt_0', 'after a restart');
  assert.equal(await s2.getReport('rpt_2'), undefined);
  await s2.close();
});
