/**
 * `cardgate import` refuses what the service could not serve (an id beyond its pages and cursors,
 * a time that would sort wrong), naming the line, keeping nothing; `sign --jku` takes https only.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openFileStore } from '../../src/store/file/file-store.ts';
import { runCli } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { iso, report, T0 } from '../store/fixtures/records.ts';

const newDir = tempDirFactory('cardgate-import-servable-');
const noDatabase = { CARDGATE_DATABASE_URL: '' };

/** An export of a data dir holding an account and two reports, as lines. */
const exportLines = async (): Promise<string[]> => {
  const dir = newDir();
  const store = await openFileStore({ dataDir: path.join(dir, 'source') });
  await store.createAccount({ id: 'acct_1', name: 'Acme', plan: 'team', created_at: iso(T0) });
  await store.putReport(report('rpt_1', { created_at: iso(T0 + 1) }));
  await store.putReport(report('rpt_2', { created_at: iso(T0 + 2) }));
  await store.close();
  const dump = path.join(dir, 'dump.jsonl');
  const r = await runCli(['export', '--data-dir', path.join(dir, 'source'), '--output', dump], { env: noDatabase });
  assert.equal(r.code, 0, r.stderr);
  return fs.readFileSync(dump, 'utf8').trimEnd().split('\n');
};

/** The line of `lines` whose report has `id`, changed by `change`. */
const withReport = (lines: string[], id: string, change: (record: Record<string, unknown>) => void): { lines: string[]; lineNo: number } => {
  const index = lines.findIndex((l) => l.includes(`\\"id\\":\\"${id}\\"`));
  assert.ok(index > 0, `a line holds ${id}`);
  const record = JSON.parse(JSON.parse(lines[index]!).line) as Record<string, unknown>;
  change(record);
  const changed = [...lines];
  changed[index] = JSON.stringify({ table: 'reports', line: JSON.stringify(record) });
  return { lines: changed, lineNo: index + 1 };
};

const importInto = async (lines: string[]) => {
  const dir = newDir();
  const dump = path.join(dir, 'dump.jsonl');
  fs.writeFileSync(dump, `${lines.join('\n')}\n`);
  const dataDir = path.join(dir, 'data');
  const r = await runCli(['import', dump, '--data-dir', dataDir], { env: noDatabase });
  const left = await runCli(['export', '--data-dir', dataDir], { env: noDatabase });
  return { ...r, rowsKept: left.stdout.trim().split('\n').length - 1 };
};

test('import refuses a report id the service cannot serve (5,000 characters), naming the line; nothing is imported', async () => {
  const lines = await exportLines();
  assert.equal((await importInto(lines)).code, 0, 'the export as it is imports');
  const { lines: bad, lineNo } = withReport(lines, 'rpt_2', (r) => void (r.id = `rpt_${'x'.repeat(5000)}`));
  const r = await importInto(bad);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`import: line ${lineNo}: id "rpt_x{36}…" \\(5004 characters\\) is not one the service can serve: 1 to 200 of A-Z a-z 0-9 \\. _ -; nothing was imported`));
  assert.equal(r.rowsKept, 0, 'the rows before it are not kept');
  const slash = withReport(lines, 'rpt_1', (r) => void (r.id = 'rpt/../x'));
  assert.match((await importInto(slash.lines)).stderr, new RegExp(`line ${slash.lineNo}: id "rpt/\\.\\./x"`));
});

test('import refuses a created_at that is not a time as cardgate writes it (it would sort as text), naming the line', async () => {
  const lines = await exportLines();
  for (const created of ['21/11/2026', '2026-11-21', '2026-11-21T12:00:00Z', '2026-11-21T12:00:00.000+01:00', 'Sat, 21 Nov 2026 12:00:00 GMT']) {
    const { lines: bad, lineNo } = withReport(lines, 'rpt_1', (r) => void (r.created_at = created));
    const r = await importInto(bad);
    assert.equal(r.code, 1, created);
    assert.ok(r.stderr.includes(`line ${lineNo}: created_at ${JSON.stringify(created)} is not a time as cardgate writes it (ISO 8601 in UTC with milliseconds`), r.stderr);
    assert.equal(r.rowsKept, 0);
  }
  const account = [...lines];
  const accountLine = account.findIndex((l) => l.includes('"table":"accounts"'));
  account[accountLine] = account[accountLine]!.replace(iso(T0), 'yesterday');
  const r = await importInto(account);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`line ${accountLine + 1}: accounts row: created_at "yesterday" is not a time`));
});

test('sign --jku requires https, as the trust API does', async () => {
  const dir = newDir();
  const key = path.join(dir, 'ci');
  assert.equal((await runCli(['keygen', '--out', key])).code, 0);
  const card = path.join(dir, 'card.json');
  fs.writeFileSync(card, '{"name":"x"}');
  for (const jku of ['http://keys.example/jwks.json', 'ftp://keys.example/jwks.json', 'keys.example/jwks.json', `https://keys.example/${'x'.repeat(3000)}`]) {
    const r = await runCli(['sign', card, '--key', `${key}.private.jwk`, '--jku', jku]);
    assert.equal(r.code, 2, jku);
    assert.match(r.stderr, /--jku must be (an https URL|at most \d+ characters), as the trust API requires/);
    assert.equal(r.stdout, '');
  }
  assert.equal((await runCli(['sign', card, '--key', `${key}.private.jwk`, '--jku', 'https://keys.example/jwks.json'])).code, 0);
});
