/**
 * A probe's checks as data (src/engine/live/checks.ts: bounds, optional path, the level of a
 * finding) and as findings (src/engine/live/findings.ts: only known live rules, only checks not
 * passed nor skipped).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCard } from '../../src/engine/index.ts';
import { boundedEvidence, findingLevel, liveCheck, type LiveCheck } from '../../src/engine/live/checks.ts';
import { clean10 } from './fixtures.ts';

test('liveCheck: id, status, message and evidence; a path only when given', () => {
  assert.deepEqual(liveCheck('live.version', 'fail', 'no', { http_status: 404 }, 'supportedInterfaces[0].url'), {
    id: 'live.version',
    status: 'fail',
    message: 'no',
    evidence: { http_status: 404 },
    path: 'supportedInterfaces[0].url',
  });
  const bare = liveCheck('live.card.media-type', 'pass', 'ok');
  assert.deepEqual(bare, { id: 'live.card.media-type', status: 'pass', message: 'ok', evidence: {} });
  assert.equal(Object.hasOwn(bare, 'path'), false);
  assert.deepEqual(liveCheck('live.card.media-type', 'pass', 'ok', {}, ''), { id: 'live.card.media-type', status: 'pass', message: 'ok', evidence: {}, path: '' });
});

test('liveCheck: a message cut at 500 characters, evidence strings at 300, both ending in an ellipsis; at the bound untouched', () => {
  assert.equal(liveCheck('live.version', 'warn', 'm'.repeat(500)).message, 'm'.repeat(500));
  assert.equal(liveCheck('live.version', 'warn', 'm'.repeat(501)).message, `${'m'.repeat(499)}…`);
  const evidence = boundedEvidence({ at: 'e'.repeat(300), over: 'e'.repeat(301), n: 5, none: null, yes: true });
  assert.deepEqual(evidence, { at: 'e'.repeat(300), over: `${'e'.repeat(299)}…`, n: 5, none: null, yes: true });
  assert.deepEqual(liveCheck('live.version', 'warn', 'x', { over: 'e'.repeat(301) }).evidence, { over: `${'e'.repeat(299)}…` });
  const sixteen = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, i]));
  assert.deepEqual(Object.keys(boundedEvidence(sixteen)), Array.from({ length: 16 }, (_, i) => `k${i}`));
});

test('findingLevel: fail at the effective level, warn at most a warning, pass and skip none', () => {
  for (const level of ['error', 'warning', 'info', 'off'] as const) {
    assert.equal(findingLevel('fail', level), level);
    assert.equal(findingLevel('pass', level), undefined);
    assert.equal(findingLevel('skip', level), undefined);
  }
  assert.equal(findingLevel('warn', 'error'), 'warning');
  assert.equal(findingLevel('warn', 'warning'), 'warning');
  assert.equal(findingLevel('warn', 'info'), 'info');
  assert.equal(findingLevel('warn', 'off'), 'off');
});

const findings = (live?: LiveCheck[], severities: Record<string, 'error' | 'warning' | 'info' | 'off'> = {}) => {
  const result = validateCard(clean10(), { ...(live ? { live } : {}), ruleset: { severities } });
  return { errors: result.errors, warnings: result.warnings, infos: result.infos ?? [] };
};

test('live findings: passed and skipped checks add none; failed and warning ones at their levels, with the check\'s path or the root', () => {
  const none = findings();
  const check = (id: string, status: LiveCheck['status'], path?: string): LiveCheck => ({ id, status, message: `${id} ${status}`, evidence: {}, ...(path === undefined ? {} : { path }) });
  assert.deepEqual(findings([check('live.version', 'pass'), check('live.interface.https', 'skip'), check('live.card.caching', 'pass')]), none);
  const found = findings([check('live.version', 'fail', 'supportedInterfaces[0].url'), check('live.interface.https', 'warn')]);
  assert.deepEqual(found.errors.filter((e) => e.rule.startsWith('live.')).map((e) => [e.rule, e.path, e.message]), [['live.version', 'supportedInterfaces[0].url', 'live.version fail']]);
  assert.deepEqual(found.warnings.filter((e) => e.rule.startsWith('live.')).map((e) => [e.rule, e.path, e.message]), [['live.interface.https', '(root)', 'live.interface.https warn']]);
  const asInfo = findings([check('live.interface.https', 'warn'), check('live.version', 'fail')], { 'live.interface.https': 'info', 'live.version': 'off' });
  assert.deepEqual(asInfo.infos.filter((e) => e.rule.startsWith('live.')).map((e) => e.rule), ['live.interface.https']);
  assert.deepEqual(asInfo.errors, none.errors);
  assert.deepEqual(asInfo.warnings, none.warnings);
});

test('live findings: a check of a rule that is no live rule, or of no known rule, adds nothing', () => {
  const none = findings();
  const failed = (id: string): LiveCheck => ({ id, status: 'fail', message: 'claimed', evidence: {} });
  assert.deepEqual(findings([failed('protocolVersion.forced'), failed('live.no-such-check'), failed('no-such-rule')]), none);
});
