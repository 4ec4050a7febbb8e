/** The report page's agent and gate, rendered from stored results: what it shows, links and escapes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchGateSection, gateSection } from '../../src/pages/report-gate.ts';
import type { ReportRecord } from '../../src/store/contract/report-records.ts';

const page = 'https://gate.example/cg/reports/rpt_2';
const report = (result: unknown, over: Partial<ReportRecord> = {}): ReportRecord => ({ id: 'rpt_2', kind: 'single', created_at: '2026-01-01T00:00:00.000Z', account_id: 'acc_1', card: {}, result, ...over });
const baseline = { report_id: 'rpt_1', new_errors: 2, new_warnings: 1, fixed: 3, score_delta: -4, passed: false };

describe('the report page\'s agent and gate', () => {
  it('shows the agent linked to its history, the branch, the baseline linked, the gate\'s numbers and the diff', () => {
    const html = gateSection(report({ valid: false, agent: { id: 'agt_1', name: 'acme/billing', branch: 'feature-x' }, baseline }), page);
    assert.match(html, /<h2 id="gate-title">Regression gate<\/h2>/);
    assert.match(html, /<a href="https:\/\/gate\.example\/cg\/agents\/agt_1"[^>]*>acme\/billing<\/a>/);
    assert.match(html, /<dt>Branch<\/dt><dd><code>feature-x<\/code><\/dd>/);
    assert.match(html, /<a href="https:\/\/gate\.example\/cg\/reports\/rpt_1"><code>rpt_1<\/code><\/a>/);
    assert.match(html, /Failed<\/span> 2 new errors, 1 new warning, 3 fixed, score −4/);
    assert.match(html, /<a href="https:\/\/gate\.example\/cg\/reports\/rpt_1\/diff\/rpt_2">Diff from the baseline<\/a>/);
  });

  it('a gate of fail_on breaking: its breaking changes among the numbers, none named when there are none', () => {
    const breaking = gateSection(report({ agent: { id: 'agt_1', name: 'a', branch: 'pr' }, baseline: { ...baseline, new_errors: 0, new_warnings: 0, fixed: 0, score_delta: 0, breaking_changes: 2 } }), page);
    assert.match(breaking, /Failed<\/span> 0 new errors, 0 new warnings, 0 fixed, 2 breaking changes, score ±0/);
    const none = gateSection(report({ agent: { id: 'agt_1', name: 'a', branch: 'pr' }, baseline: { ...baseline, breaking_changes: 0 } }), page);
    assert.doesNotMatch(none, /breaking/);
  });

  it('a baseline of a batch report: the diff names the agent whose card it compares', () => {
    const html = gateSection(report({ agent: { id: 'agt_1', name: 'a', branch: null }, baseline: { ...baseline, report_id: 'batch_1', passed: true } }), page);
    assert.match(html, /\/reports\/batch_1\/diff\/rpt_2\?agent=agt_1"/);
    assert.match(html, /none named: counts as the agent's default branch/);
  });

  it('an agent without a gate: the agent and branch only; a report stored before results named their branch reads the webhook\'s; nothing for a keyless one', () => {
    const html = gateSection(report({ agent: { id: 'agt_1', name: 'a' } }, { kind: 'webhook', meta: { branch: 'main' } }), page);
    assert.match(html, /<h2 id="gate-title">Agent<\/h2>/);
    assert.match(html, /<code>main<\/code>/);
    assert.doesNotMatch(html, /Baseline|Diff/);
    assert.equal(gateSection(report({ valid: true, score: 90 }), page), '');
    assert.equal(gateSection(report({ agent: 'not an object' }), page), '');
  });

  it('escapes and clips what the result holds', () => {
    const html = gateSection(report({ agent: { id: 'agt_"><script>', name: `<img src=x onerror=alert(1)>${'n'.repeat(500)}`, branch: '</code><script>alert(1)</script>' }, baseline: { ...baseline, report_id: '"><b>x' } }), page);
    assert.doesNotMatch(html, /<script|<img|<b>/);
    assert.ok(html.length < 4000, `${html.length} characters`);
  });

  it('a batch: a row per card that joined an agent, its diff naming the agent', () => {
    const batch = report({ results: [{ id: 'a', agent: { id: 'agt_1', name: 'acme/a', branch: 'pr' }, baseline: { ...baseline, passed: true } }, { id: 'b' }, { id: 'c', agent: { id: 'agt_3', name: 'acme/c', branch: 'pr' } }] }, { id: 'batch_9', kind: 'batch' });
    const html = batchGateSection(batch, 'https://gate.example/reports/batch_9', (id) => String(id));
    assert.equal([...html.matchAll(/<tr><td data-label="Card id">/g)].length, 2);
    assert.match(html, /\/reports\/rpt_1\/diff\/batch_9\?agent=agt_1">Diff/);
    assert.match(html, /none asked/);
    assert.equal(batchGateSection(report({ results: [{ id: 'x' }] }, { kind: 'batch' }), page, String), '');
  });
});
