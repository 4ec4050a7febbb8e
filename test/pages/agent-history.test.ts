/**
 * The agent history's pure parts: a page of history rows as entries with their diff links, the
 * score chart (bounded whatever the number of reports, gaps for reports without a score, a time
 * axis, each point's hover label inside the chart), and the page (escaped, small with a huge name).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { historyEntries, type AgentHistory } from '../../src/features/agents/history.ts';
import type { AgentReportEntry } from '../../src/store/contract/agents.ts';
import { CHART, CHART_MAX_POINTS, CHART_NARROW, MAX_LANES, chartGeometry } from '../../src/pages/agent-chart.ts';
import { renderAgentPage, renderScoreChart } from '../../src/pages/agent.ts';
import { nonEmpty } from '../support/checks.ts';

const link = (id: string) => `https://gate.example/reports/${encodeURIComponent(id)}`;

/** `n` rows newest first: rpt_n … rpt_1, scores going down by 1 from 100 toward the newest. */
const rows = (n: number): AgentReportEntry[] =>
  Array.from({ length: n }, (_, i) => {
    const k = n - i;
    const created_at = new Date(Date.UTC(2026, 0, 1) + k * 60_000).toISOString();
    return { agent_id: 'agt_1', report_id: `rpt_${k}`, created_at, valid: k % 2 === 0, score: Math.max(0, 100 - k), errors: k % 3, warnings: k % 5, branch: null };
  });

const history = (entries: AgentHistory['reports'], name = 'acme/billing-agent'): AgentHistory => ({
  agent: {
    id: 'agt_1', name, account_id: 'acc_1', first_seen: '2026-01-01T00:00:00.000Z', last_seen: '2026-01-02T00:00:00.000Z',
    latest_report_id: 'rpt_3', latest: null, counts: { reports: 10_000, valid: 5000, invalid: 5000 }, last_checked_at: null, unchanged_runs: 0, default_branch: 'main',
  },
  default_latest: null,
  badge_url: 'https://gate.example/agents/agt_1/badge.svg?token=t0k',
  branch: null,
  reports: entries,
  next_cursor: null,
});

describe('history entries', () => {
  it('link each report to its page and to the diff from the report before, the extra row giving the last one its link', () => {
    const { items: entries, next } = historyEntries(rows(4), 3, link);
    assert.deepEqual(next, { key: entries[2]!.created_at, id: 'rpt_2' }, 'older reports follow the last entry');
    assert.deepEqual(entries.map((e) => [e.id, e.previous_id, e.diff_url]), [
      ['rpt_4', 'rpt_3', `${link('rpt_3')}/diff/rpt_4`],
      ['rpt_3', 'rpt_2', `${link('rpt_2')}/diff/rpt_3`],
      ['rpt_2', 'rpt_1', `${link('rpt_1')}/diff/rpt_2`],
    ]);
    assert.equal(entries[0]!.url, link('rpt_4'));
  });

  it('the agent\'s first report has no diff, and the last page says so', () => {
    const { items: entries, next } = historyEntries(rows(2), 3, link);
    assert.equal(next, undefined);
    assert.deepEqual(entries.map((e) => e.diff_url === null), [false, true]);
  });
});

/** Scores as chart items a minute apart from 2026-01-01 00:00 UTC. */
const minutes = (s: number | null, i: number) => ({ score: s, at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), valid: true, branch: 'main' });

describe('the score chart', () => {
  it('draws at most CHART_MAX_POINTS points, the newest, within the view box', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => i % 101);
    const { points, lines } = chartGeometry(many.map((s, i) => minutes(s, i)), (item) => item);
    assert.equal(points.length, CHART_MAX_POINTS);
    assert.equal(points.at(-1)!.item.score, many.at(-1));
    for (const p of nonEmpty(points, 'points')) {
      assert.ok(p.x >= CHART.left && p.x <= CHART.width - CHART.right, `x ${p.x}`);
      assert.ok(p.y !== null && p.y >= CHART.top && p.y <= CHART.height - CHART.bottom, `y ${p.y}`);
    }
    assert.equal(lines.length, 1);
  });

  it('leaves a gap for a report without a score and draws a score out of range at the edge', () => {
    const { points, lines } = chartGeometry([50, 60, null, 70, 80, 1e9, -5, Number.NaN].map(minutes), (item) => item);
    assert.equal(points.filter((p) => p.y === null).length, 2);
    assert.equal(lines.length, 2);
    assert.equal(points[5]!.y, CHART.top);
    assert.equal(points[6]!.y, CHART.height - CHART.bottom);
  });

  it('one report is one dot in the middle and no line', () => {
    const { points, lines } = chartGeometry([90].map(minutes), (item) => item);
    assert.equal(points.length, 1);
    assert.equal(lines.length, 0);
    assert.equal(points[0]!.x, CHART.left + (CHART.width - CHART.left - CHART.right) / 2);
  });

  it('puts each report at its time: the axis spans the first to the last, labelled in UTC (days over a day or more, else times of day)', () => {
    const at = (iso: string, score: number) => ({ score, at: iso, valid: score > 50, branch: 'main' });
    const hours = chartGeometry([at('2026-03-01T09:00:00Z', 90), at('2026-03-01T10:00:00Z', 40), at('2026-03-01T12:00:00Z', 95)], (item) => item);
    const [a, b, c] = hours.points.map((p) => p.x);
    assert.deepEqual([a, c], [CHART.left, CHART.width - CHART.right]);
    assert.ok(Math.abs((b! - a!) / (c! - a!) - 1 / 3) < 0.01, 'an hour of three is a third of the way');
    assert.deepEqual(hours.ticks.map((t) => t.label), ['Mar 1 09:00', '10:00', '11:00', '12:00']);
    const days = chartGeometry([at('2026-03-01T00:00:00Z', 90), at('2026-03-07T00:00:00Z', 90)], (item) => item);
    assert.deepEqual(days.ticks.map((t) => t.label), ['Mar 1', 'Mar 3', 'Mar 5', 'Mar 7']);
    assert.equal(hours.points[1]!.tip.text, 'Mar 1 10:00 UTC · invalid · score 40');
  });

  it('draws a line per branch: the default branch\'s first (a report naming none is its), then the most recently active others, at most MAX_LANES; the rest dots only', () => {
    // Oldest first: main, then six other branches, each with two reports, newest last; one report named no branch.
    const branches = ['main', 'old-a', 'old-b', 'feat-c', 'feat-d', 'feat-e', 'main'];
    const items = branches.flatMap((branch, b) => [0, 1].map((k) => ({ score: 50 + b + k, at: new Date(Date.UTC(2026, 0, 1) + (b * 2 + k) * 3_600_000).toISOString(), valid: true, branch })));
    items.push({ score: 90, at: '2026-01-01T20:00:00.000Z', valid: true, branch: 'main' });
    const g = chartGeometry(items, (item) => item, 'main');
    assert.deepEqual(g.lanes.map((l) => [l.name, l.isDefault, l.dash === null, l.reports]), [['main', true, true, 5], ['feat-e', false, false, 2], ['feat-d', false, false, 2], ['feat-c', false, false, 2]]);
    assert.equal(new Set(g.lanes.map((l) => l.dash)).size, MAX_LANES, 'each lane its own dash');
    assert.equal(g.otherBranches, 2, 'old-a and old-b: dots only');
    assert.deepEqual(g.points.map((p) => p.lane), items.map((i) => (i.branch === 'main' ? 0 : i.branch === 'feat-e' ? 1 : i.branch === 'feat-d' ? 2 : i.branch === 'feat-c' ? 3 : null)));
    // main's reports are two runs apart in time but one lane: one line through its five points; each other lane one line of two.
    assert.deepEqual(g.lines.map((l) => [l.lane, l.points.split(' ').length]), [[0, 5], [1, 2], [2, 2], [3, 2]]);
    assert.match(g.points[0]!.tip.text, / · main · valid · score 50$/, 'the hover label names the branch');
    const one = chartGeometry([minutes(50, 0), minutes(60, 1)], (item) => item, 'main');
    assert.deepEqual([one.lanes.length, one.otherBranches, one.points[0]!.tip.text], [1, 0, 'Jan 1 00:00 UTC · valid · score 50'], 'one branch: no branch in the label');
  });

  it('labels the time axis in whole steps, no label twice, and thins it for a phone to labels that do not overlap there', () => {
    const spans: Array<[string, string]> = [
      ['2026-03-01T09:00:00Z', '2026-03-01T09:00:40Z'],
      ['2026-03-01T09:07:00Z', '2026-03-01T11:14:00Z'],
      ['2026-03-01T22:10:00Z', '2026-03-02T09:50:00Z'],
      ['2026-03-01T09:00:00Z', '2026-03-02T21:00:00Z'],
      ['2026-03-01T09:00:00Z', '2026-03-04T10:00:00Z'],
      ['2026-03-01T00:00:00Z', '2026-04-10T00:00:00Z'],
      ['2025-01-01T00:00:00Z', '2026-11-01T00:00:00Z'],
    ];
    for (const [from, to] of spans) {
      const { ticks } = chartGeometry([{ score: 1, at: from, valid: true, branch: 'main' }, { score: 2, at: to, valid: true, branch: 'main' }], (item) => item);
      const labels = ticks.map((t) => t.label);
      assert.equal(new Set(labels).size, labels.length, `${from}..${to}: ${labels}`);
      assert.ok(ticks.length >= (from.slice(0, 16) === to.slice(0, 16) ? 1 : 2) && ticks.length <= 5, `${from}..${to}: ${labels}`);
      assert.deepEqual(ticks.map((t) => t.x), ticks.map((t) => t.x).sort((a, b) => a - b));
      assert.ok(ticks[0]!.narrow, 'the first is always labelled');
      // On a phone the labels are drawn CHART_NARROW.fontSize units high: those shown stay apart and inside the chart.
      const width = (label: string) => label.length * 6.1 * (CHART_NARROW.fontSize / 11);
      const extents = ticks.filter((t) => t.narrow).map((t) => (t.anchor === 'start' ? [t.x, t.x + width(t.label)] : t.anchor === 'end' ? [t.x - width(t.label), t.x] : [t.x - width(t.label) / 2, t.x + width(t.label) / 2]));
      for (const [i, [a, b]] of extents.entries()) {
        assert.ok(a! >= 0 && b! <= CHART.width, `${from}..${to}: ${labels[i]} from ${a} to ${b}`);
        if (i > 0) assert.ok(a! > extents[i - 1]![1]!, `${from}..${to}: overlaps the one before`);
      }
    }
    const seconds = chartGeometry([{ score: 1, at: '2026-03-01T09:00:05Z', valid: true, branch: 'main' }, { score: 2, at: '2026-03-01T09:00:40Z', valid: true, branch: 'main' }], (item) => item);
    assert.deepEqual(seconds.ticks.map((t) => t.label), ['Mar 1 09:00'], 'reports seconds apart: one label of their minute, not "Mar 1 09:00" and "09:00"');
    const overDays = chartGeometry([{ score: 1, at: '2026-03-01T09:00:00Z', valid: true, branch: 'main' }, { score: 2, at: '2026-03-02T21:00:00Z', valid: true, branch: 'main' }], (item) => item);
    assert.deepEqual(overDays.ticks.map((t) => t.label), ['Mar 1 12:00', 'Mar 2 00:00', '12:00'], 'a day and a half: times of day, the day where it changes (it said Mar 1, Mar 1, Mar 2, Mar 2)');
  });

  it('keeps every hover label inside the chart, whatever the point\'s place', () => {
    const { points } = chartGeometry([100, 0, 100, 50, 100].map(minutes), (item) => item);
    for (const { tip } of points) {
      assert.ok(tip.x >= 0 && tip.x + tip.width <= CHART.width, `label from ${tip.x} to ${tip.x + tip.width}`);
      assert.ok(tip.y >= 0 && tip.y + 20 <= CHART.height, `label at ${tip.y}`);
    }
  });

  it('as SVG: one linked dot per scored report, oldest on the left, and nothing else drawn from outside', () => {
    const { items: entries } = historyEntries(rows(3), 3, link);
    const svg = renderScoreChart(entries, 'main');
    const dots = [...svg.matchAll(/<a class="pt" href="([^"]+)"><circle class="dot (\w+)" cx="([\d.]+)"/g)].map((m) => [m[1], m[2], Number(m[3])]);
    assert.deepEqual(dots.map(([href, kind]) => [href, kind]), [[link('rpt_1'), 'bad'], [link('rpt_2'), 'ok'], [link('rpt_3'), 'bad']]);
    assert.ok((dots[0]![2] as number) < (dots[2]![2] as number));
    assert.doesNotMatch(svg, /<script|<image|<use|href="(?!https:\/\/gate\.example\/)/);
  });
});

describe('the agent page', () => {
  it('shows the timeline with report and diff links, the chart and the badge, escaping the agent\'s name', () => {
    const { items: entries } = historyEntries(rows(3), 2, link);
    const page = renderAgentPage(history(entries, '<script>alert(1)</script>"'), { page: 'https://gate.example/agents/agt_1', older: 'https://gate.example/agents/agt_1?cursor=abc' });
    assert.doesNotMatch(page, /<script>alert/);
    assert.match(page, /&#60;script&#62;alert\(1\)&#60;\/script&#62;&#34;/);
    assert.match(page, /<svg class="score-chart"/);
    assert.equal([...page.matchAll(/<tr><td><time/g)].length, 2);
    assert.match(page, new RegExp(`href="${link('rpt_2')}/diff/rpt_3">What changed`));
    assert.match(page, /rel="next">Older reports/);
    assert.match(page, /badge\.svg\?token=t0k/);
  });

  it('the chart\'s legend names each branch drawn as a line, the default branch first, and its line is the emphasised one', () => {
    const entries = historyEntries(rows(4), 4, link).items.map((e, i) => ({ ...e, branch: i % 2 === 0 ? 'feature/<x>' : null }));
    const svg = renderScoreChart(entries, 'main');
    assert.deepEqual([...svg.matchAll(/<polyline class="(line(?: main)?)"/g)].map((m) => m[1]), ['line', 'line main'], 'the default branch drawn last, over the other');
    const legend = /<ul class="chart-legend"[^>]*>(.*)<\/ul>/.exec(svg)?.[1] ?? '';
    assert.deepEqual([...legend.matchAll(/<code title="([^"]*)">/g)].map((m) => m[1]), ['main', 'feature/&#60;x&#62;']);
    assert.match(legend, /<line class="line main"[^>]*\/><\/svg><code title="main">main<\/code> \(default branch\)/);
  });

  it('stays small with a 1 MB name and a full page of reports', () => {
    const { items: entries } = historyEntries(rows(101), 100, link);
    const page = renderAgentPage(history(entries, 'x'.repeat(1024 * 1024)), { page: 'https://gate.example/agents/agt_1' });
    assert.ok(page.length < 96 * 1024, `${page.length} characters`);
    assert.equal([...page.matchAll(/<circle class="dot /g)].length, 100);
  });
});

describe('the history page\'s verdict line', () => {
  const entry = (report_id: string, valid: boolean, score: number, branch: string | null): AgentReportEntry => ({ agent_id: 'agt_1', report_id, created_at: '2026-01-02T00:00:00.000Z', valid, score, errors: valid ? 0 : 2, warnings: 0, branch });
  const page = (over: Partial<AgentHistory>, agentLatest: AgentReportEntry | null) => {
    const base = history([]);
    return renderAgentPage({ ...base, ...over, agent: { ...base.agent, latest: agentLatest } }, { page: 'https://gate.example/agents/agt_1' });
  };
  const verdictLines = (html: string) => [...html.matchAll(/<p class="(verdict|muted)">(.*?)<\/p>/g)].map((m) => m[2]!.replace(/<[^>]+>/g, ''));

  it('shows the default branch\'s latest (the badge\'s), labelled with the branch, and the newest of another branch beside it, not instead of it', () => {
    const html = page({ default_latest: entry('rpt_1', true, 93, 'main') }, entry('rpt_2', false, 40, 'feature-x'));
    assert.match(html, /<p class="verdict"><span class="badge ok">/);
    assert.ok(verdictLines(html).includes('Validlatest report of the default branch main: score 93'), verdictLines(html).join(' | '));
    assert.ok(verdictLines(html).includes('Newest report of any branch (on feature-x): invalid, score 40.'), verdictLines(html).join(' | '));
  });

  it('shows one line when the newest report is the default branch\'s, and says so when the default branch has none', () => {
    const same = entry('rpt_1', true, 93, null);
    const html = page({ default_latest: same }, same);
    assert.equal(html.match(/Newest report of any branch/g), null);
    const none = page({ default_latest: null }, entry('rpt_2', false, 40, 'feature-x'));
    assert.doesNotMatch(none, /badge bad/);
    assert.ok(verdictLines(none).includes('No report of the default branch main yet.'), verdictLines(none).join(' | '));
  });
});
