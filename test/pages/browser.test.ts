/**
 * The public pages in headless Chromium against the real server, at 1280x800 and 390x844, light
 * and dark: content, no sideways scrolling, text contrast of at least 4.5:1, no request to any
 * other host, no console error (a blocked script would log one); and what the script adds: local
 * time stamps, "copy as Markdown", the landing page's form. Screenshots go to test-artifacts/pages/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startBrowser, startService } from '../support/browser.ts';
import { minimalCard } from '../support/cards.ts';
import { lowContrastTexts } from './contrast.ts';
import { legibleChart } from './chart-legibility.ts';
import { renderAgentPage } from '../../src/pages/agent.ts';

const shots = new URL('../../test-artifacts/pages', import.meta.url).pathname;

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;
let reportPath = '';
let invalidPath = '';
let batchPath = '';
let webhookPath = '';
/** A pull request's report gated against its base branch, a gated batch, and their agent's history (read with `gateKey`). */
let gatedPath = '';
let gatedBatchPath = '';
let gatedAgentPath = '';
let gateKey: Record<string, string> = {};
const longBranch = `feature/${'a-rather-long-branch-name-'.repeat(3)}x`;

/** A 0.3.0 card that also addresses 1.0, with long unbroken values and a plain-http URL. */
const card = {
  ...minimalCard('Route Planner <Agent>', `Plans routes. ${'A long description that wraps. '.repeat(6)}`),
  url: 'http://agent.acme.net/a2a',
  supportedInterfaces: [{ url: 'https://agent.acme.net/a2a', protocolBinding: 'JSONRPC' }],
  unknownFieldWithAVeryLongNameThatGoesOnAndOnAndOnAndOn: 'x'.repeat(180),
  skills: [{ id: 'route', name: 'Route', description: 'Routes.', tags: [], extra_thing: 1 }],
};

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${path}: ${res.status}`);
  return res.json() as Promise<Record<string, any>>;
};

const validate = (card: unknown) => post('/v1/validate', { agent_card: card }) as Promise<{ report_url: string }>;

/** A pro key, made through the admin API: batches need one. */
const proKey = async (): Promise<Record<string, string>> => {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const account = await post('/admin/api/accounts', { name: 'pages', plan: 'pro' }, admin);
  const key = await post(`/admin/api/accounts/${account.account.id}/keys`, { name: 'pages' }, admin);
  return { authorization: `Bearer ${key.secret}` };
};

before(async () => {
  service = await startService();
  browser = await startBrowser(service.url);
  mkdirSync(shots, { recursive: true });
  reportPath = new URL((await validate(card)).report_url).pathname;
  invalidPath = new URL((await validate({ ...minimalCard(), name: 42, defaultInputModes: 'text' })).report_url).pathname;
  const batch = await post('/v1/validate/batch', { cards: [{ id: 'good', agent_card: minimalCard() }, { id: 'dual <card>', agent_card: card }, { id: 'bad', agent_card: {} }] }, await proKey());
  batchPath = `/reports/${batch.batch_id}`;
  webhookPath = new URL((await post('/v1/webhook', { agent_card: card, metadata: { branch: 'main', commit: 'a'.repeat(40) } })).report_url).pathname;
  gateKey = await proKey();
  const named = { agent: 'acme/route-planner' };
  const onMain = await post('/v1/validate', { agent_card: minimalCard('Route planner'), options: { ...named, branch: 'main' } }, gateKey);
  await post('/v1/validate', { agent_card: card, options: { ...named, branch: 'release' } }, gateKey);
  const pr = await post('/v1/validate', { agent_card: { ...minimalCard('Route planner'), defaultInputModes: 'text' }, options: { ...named, branch: longBranch, baseline: 'branch:main' } }, gateKey);
  gatedPath = new URL(pr.report_url).pathname;
  gatedAgentPath = `/agents/${onMain.agent.id}`;
  await post('/v1/validate', { agent_card: card, options: { agent: 'acme/other', branch: 'main' } }, gateKey);
  const gatedBatch = await post('/v1/validate/batch', {
    cards: [{ id: 'route', agent: named.agent, agent_card: minimalCard('Route planner') }, { id: 'other <card>', agent: 'acme/other', agent_card: card }],
    options: { branch: longBranch, baseline: 'branch:main' },
  }, gateKey);
  gatedBatchPath = `/reports/${gatedBatch.batch_id}`;
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

const sizes = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
const schemes = ['light', 'dark'] as const;

/** Opens `path` at every size and colour scheme, checking layout and contrast; returns the HTTP status. */
const checkEverywhere = async (path: string, name: string, expectStatus = 200) => {
  const { page } = browser;
  for (const size of sizes) {
    for (const colorScheme of schemes) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme });
      const res = await page.goto(`${service.url}${path}`);
      assert.equal(res?.status(), expectStatus, path);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} at ${size.width} px scrolls sideways by ${overflow} px`);
      const { checked, low } = await lowContrastTexts(page, 4.5);
      assert.ok(checked > 0, `${path}: visible texts inspected for contrast`);
      assert.deepEqual(low, [], `${path} ${size.width} ${colorScheme}`);
      await page.screenshot({ path: join(shots, `${name}-${size.width}-${colorScheme}.png`), fullPage: true });
    }
  }
  await page.setViewportSize(sizes[0]);
  await page.emulateMedia({ colorScheme: 'light' });
};

describe('the public pages in a browser', () => {
  it('the report page: verdict, compatibility, findings beside the card, at both sizes, light and dark', async () => {
    await checkEverywhere(reportPath, 'report');
    await checkEverywhere(invalidPath, 'report-invalid');
    const { page } = browser;
    await page.goto(`${service.url}${reportPath}`);
    await page.getByRole('heading', { name: 'Route Planner <Agent>', level: 1 }).waitFor();
    assert.ok(await page.getByText('valid for 0.3.0 clients; invalid for 1.0 clients').isVisible());
    // Side by side on a wide screen.
    const findings = (await page.locator('.findings-pane').boundingBox())!;
    const cardBox = (await page.locator('.card-pane').boundingBox())!;
    assert.ok(cardBox.x > findings.x + findings.width - 1, 'the card sits beside the findings');
  });

  it('batch and webhook reports, at both sizes, light and dark', async () => {
    await checkEverywhere(batchPath, 'report-batch');
    await checkEverywhere(webhookPath, 'report-webhook');
    const { page } = browser;
    await page.goto(`${service.url}${batchPath}`);
    await page.getByText('2 of 3 valid').waitFor();
    assert.equal(await page.locator('section:has(> h2:text-is("Cards")) table tbody tr').count(), 3);
  });

  it('a gated report shows its agent (linked), branch, baseline (linked), the gate\'s numbers and the diff, at both sizes, light and dark', async () => {
    await checkEverywhere(gatedPath, 'report-gate');
    await checkEverywhere(gatedBatchPath, 'report-batch-agents');
    const { page } = browser;
    await page.goto(`${service.url}${gatedPath}`);
    const gate = page.locator('section.gate');
    await gate.getByRole('heading', { name: 'Regression gate' }).waitFor();
    assert.equal(await gate.getByRole('link', { name: 'acme/route-planner' }).getAttribute('href'), `${service.url}${gatedAgentPath}`);
    assert.ok(await gate.getByText(longBranch).isVisible());
    assert.match((await gate.textContent())!, /Failed\s*1 new error, 0 new warnings, 0 fixed, 1 breaking change, score −\d+/);
    const baseline = gate.locator('dt:text-is("Baseline") + dd a');
    assert.match((await baseline.getAttribute('href'))!, /\/reports\/rpt_\w+$/);
    await gate.getByRole('link', { name: 'Diff from the baseline' }).click();
    await page.waitForURL(/\/reports\/rpt_\w+\/diff\/rpt_\w+$/);
    assert.equal(new URL(page.url()).pathname.split('/diff/')[1], gatedPath.split('/').at(-1));
    // The score's drop with the true minus sign, as the gate above and the Action write it.
    assert.match((await page.locator('main p.verdict').textContent())!, / · score −\d+ · /);
    // The diff page too reads at both sizes, light and dark, without scrolling sideways.
    await checkEverywhere(new URL(page.url()).pathname, 'report-diff');
    await page.goto(`${service.url}${gatedBatchPath}`);
    const rows = page.locator('section.gate tbody tr');
    assert.equal(await rows.count(), 2);
    assert.ok(await rows.first().getByRole('link', { name: 'acme/route-planner' }).isVisible());
    assert.match((await rows.nth(1).textContent())!, /Passed\s*0 new errors, 0 new warnings, 0 fixed, score ±0/);
    assert.match((await rows.nth(1).getByRole('link', { name: 'Diff' }).getAttribute('href'))!, /\/reports\/rpt_\w+\/diff\/batch_\w+\?agent=agt_\w+$/);
  });

  it('an agent\'s history: each report\'s branch, the branch filter, the default branch, at both sizes, light and dark', async () => {
    const { page } = browser;
    await page.setExtraHTTPHeaders(gateKey);
    try {
      await checkEverywhere(gatedAgentPath, 'agent-history');
      await page.goto(`${service.url}${gatedAgentPath}`);
      // Newest first: the batch, the pull request (their branch clipped on the page, whole in its link), release, main.
      const cells = page.locator('table tbody tr td:nth-child(3)');
      assert.deepEqual(await cells.allTextContents(), [`${longBranch.slice(0, 39)}…`, `${longBranch.slice(0, 39)}…`, 'release', 'main']);
      assert.equal(await cells.first().locator('a').getAttribute('title'), longBranch);
      assert.ok(await page.locator('dt:text-is("Default branch") + dd').getByText('main').isVisible());
      // The headline is the default branch's latest (the badge's), named; the newest report, of the pull request's branch, beside it.
      assert.match((await page.locator('p.verdict').textContent())!, /^Validlatest report of the default branch main: score \d+$/);
      assert.match((await page.locator('h1 ~ p.muted').first().textContent())!, /^Newest report of any branch \(on .+…?\): (valid|invalid), score \d+\.$/);
      await page.getByLabel('Branch', { exact: true }).fill('release');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/\?branch=release$/);
      await page.getByRole('heading', { name: 'Reports of branch release' }).waitFor();
      assert.equal(await page.locator('table tbody tr').count(), 1);
      await page.getByRole('link', { name: 'Every branch' }).click();
      await page.waitForURL((url) => url.search === '');
      await checkEverywhere(`${gatedAgentPath}?branch=${encodeURIComponent(longBranch)}`, 'agent-history-branch');
    } finally {
      await page.setExtraHTTPHeaders({});
    }
  });

  it('the score chart: a line per branch, the default branch\'s first in its legend; its time labels once each and legible at both sizes, light and dark', async () => {
    const { page } = browser;
    // A day and a half of a team's reports on six branches (the page as the server renders it, its data made here).
    // Newest first: release's reports, then the long-named feature's, fix/login's, old/a's and old/b's; main's every third.
    const others = ['release/2026-03', `feature/${'long-name-'.repeat(6)}end`, 'fix/login', 'old/a', 'old/b'];
    const reports = Array.from({ length: 40 }, (_, i) => {
      const id = `rpt_${String(40 - i).padStart(3, '0')}`;
      const branch = i % 3 === 0 ? 'main' : others[Math.floor(i / 8)]!;
      return { id, created_at: new Date(Date.UTC(2026, 2, 1, 9) + (40 - i) * 50 * 60_000).toISOString(), valid: i % 4 !== 1, score: 60 + ((i * 7) % 40), errors: 0, warnings: 1, branch: i === 5 ? null : branch, url: `${service.url}/reports/${id}`, previous_id: null, diff_url: null };
    });
    const history = {
      agent: { id: 'agt_chart', name: 'acme/chart', account_id: 'acc_1', first_seen: reports.at(-1)!.created_at, last_seen: reports[0]!.created_at, latest_report_id: reports[0]!.id, latest: null, counts: { reports: 40, valid: 30, invalid: 10 }, last_checked_at: null, unchanged_runs: 0, default_branch: 'main' },
      default_latest: null, badge_url: `${service.url}/agents/agt_chart/badge.svg?token=t`, branch: null, reports, next_cursor: null,
    };
    const html = renderAgentPage(history, { page: `${service.url}/agents/agt_chart` }, 'Acme');
    for (const size of sizes) {
      for (const colorScheme of schemes) {
        await page.setViewportSize(size);
        await page.emulateMedia({ colorScheme });
        await page.goto(`${service.url}/rules`);
        await page.setContent(html);
        const seen = await legibleChart(page, `${size.width} ${colorScheme}`);
        assert.deepEqual(seen.legend.slice(0, 2), ['main (default branch)', 'release/2026-03'], 'the default branch first, then the most recently active');
        assert.equal(seen.legend.length, 5, 'four lanes and the branches drawn as dots only');
        assert.match(seen.legend.at(-1)!, /^2 more branches: dots only$/);
        assert.ok(seen.lines >= 4, `${seen.lines} lines`);
        if (size.width === 390) assert.ok(seen.times.length >= 2 && seen.times.length <= 3, `thinned on a phone: ${seen.times.map((t) => t.text)}`);
        else assert.ok(seen.times.length >= 3, `${seen.times.map((t) => t.text)}`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${size.width}: scrolls sideways by ${overflow} px`);
        const { low } = await lowContrastTexts(page, 4.5);
        assert.deepEqual(low, [], `${size.width} ${colorScheme}`);
        await page.locator('svg.score-chart[role="img"]').locator('xpath=..').screenshot({ path: join(shots, `agent-chart-${size.width}-${colorScheme}.png`) });
      }
    }
    await page.setViewportSize(sizes[0]);
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('on a phone a batch\'s cards and gates and a report\'s score table fit their boxes: rows stack or wrap, nothing scrolls sideways', async () => {
    const { page } = browser;
    await page.setViewportSize(sizes[1]);
    await page.setExtraHTTPHeaders(gateKey);
    try {
      for (const path of [batchPath, gatedBatchPath, reportPath, invalidPath, gatedPath]) {
        await page.goto(`${service.url}${path}`);
        const boxes = (await page.evaluate(`[...document.querySelectorAll('.scroll')].map((box) => ({ table: box.querySelector('table')?.className ?? '', head: box.querySelector('th')?.textContent ?? '', over: box.scrollWidth - box.clientWidth }))`)) as Array<{ table: string; head: string; over: number }>;
        assert.ok(boxes.length > 0, `${path}: its tables`);
        for (const box of boxes) assert.ok(box.over <= 0, `${path}: the table under "${box.head}" scrolls sideways by ${box.over} px in its box`);
      }
      await page.goto(`${service.url}${gatedBatchPath}`);
      const gateRow = page.locator('section.gate tbody tr').first();
      assert.deepEqual(await gateRow.locator('td').evaluateAll((cells) => cells.map((c) => c.getAttribute('data-label'))), ['Card id', 'Agent', 'Branch', 'Baseline', 'Gate', 'What changed']);
      await page.screenshot({ path: join(shots, 'report-batch-agents-stacked-390.png'), fullPage: true });
    } finally {
      await page.setExtraHTTPHeaders({});
      await page.setViewportSize(sizes[0]);
    }
  });

  it('on a phone the report is one column of reasonable height, long lines wrapped inside the card box', async () => {
    const { page } = browser;
    await page.setViewportSize(sizes[1]);
    await page.goto(`${service.url}${reportPath}`);
    const findings = (await page.locator('.findings-pane').boundingBox())!;
    const cardBox = (await page.locator('.card-pane').boundingBox())!;
    assert.equal(Math.round(cardBox.x), Math.round(findings.x), 'one column');
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(height < 6000, `the page is ${height} px tall`);
    const code = await page.locator('.code').evaluate((el) => ({ scrollWidth: el.scrollWidth, clientWidth: el.clientWidth }));
    assert.ok(code.scrollWidth <= code.clientWidth, 'no line runs out of the card box');
    await page.setViewportSize(sizes[0]);
  });

  it('a finding links to its line, highlighted; rule ids link to their page', async () => {
    const { page } = browser;
    await page.goto(`${service.url}${reportPath}`);
    const link = page.locator('li:has(code:text-is("unknownFieldWithAVeryLongNameThatGoesOnAndOnAndOnAndOn")) a.at');
    const target = (await link.getAttribute('href'))!;
    await link.click();
    assert.equal(new URL(page.url()).hash, target);
    const row = page.locator(target);
    assert.ok((await row.textContent())!.includes('unknownFieldWithAVeryLongNameThatGoesOnAndOnAndOnAndOn'));
    assert.ok(await row.isVisible());
    assert.ok(await row.evaluate((el) => el.matches(':target') && el.classList.contains('warning')));
    const inView = await row.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const pane = el.closest('.code')!.getBoundingClientRect();
      return box.top >= pane.top - 1 && box.bottom <= pane.bottom + 1;
    });
    assert.ok(inView, 'the card box scrolled to the line');
    await page.locator('a[href="/rules/field.unknown"]').first().click();
    await page.getByRole('heading', { name: 'field.unknown', level: 1 }).waitFor();
  });

  it('each finding\'s line in the API answer and in SARIF is the line the page marks at #L<line>, in the card\'s own text', async () => {
    const { page } = browser;
    // As a CI step sends a card file: its own text in the body, after another member. Its skills
    // are written on one line, as people do: pretty-printed again, they moved to other lines.
    const { skills, ...rest } = card;
    const cardText = JSON.stringify(rest, null, 2).replace(/\n}$/, `,\n  "skills": ${JSON.stringify(skills)}\n}`);
    const key = await proKey(); // the anonymous quota is the landing page test's
    const send = async (options: object) => {
      const res = await fetch(`${service.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json', ...key }, body: `{"options": ${JSON.stringify(options)},\n  "agent_card": ${cardText}}` });
      assert.equal(res.status, 200);
      return res.json() as Promise<Record<string, any>>;
    };
    const answer = await send({});
    const sarif = await send({ format: 'sarif', file: 'agent-card.json' });
    const lines: number[] = [...answer.errors, ...answer.warnings].map((f: { line: number }) => f.line);
    // Information findings (SARIF notes) are not among the answer's errors and warnings, nor marked on the page.
    const sarifLines: number[] = sarif.runs[0].results.filter((r: any) => r.level !== 'note').map((r: any) => r.locations[0].physicalLocation.region.startLine);
    assert.ok(lines.length >= 3, 'findings expected');
    assert.deepEqual([...sarifLines].sort(), [...lines].sort());
    const own = cardText.split('\n');
    for (const line of new Set(lines)) {
      await page.goto(`${service.url}${new URL(answer.report_url).pathname}#L${line}`);
      const target = page.locator(':target');
      assert.equal(await target.locator('.ln').textContent(), String(line));
      assert.equal(await target.locator('.src').textContent(), own[line - 1], `line ${line} is the card's own line`);
      assert.ok(await target.evaluate((el) => el.classList.contains('warning') || el.classList.contains('error')), `line ${line} is marked`);
    }
  });

  it('stamps read as the dashboard writes them (ISO-like, 24 h, UTC) once the script ran, and "copy as Markdown" copies the summary', async () => {
    const { page } = browser;
    await page.goto(`${service.url}${reportPath}`);
    await page.getByRole('button', { name: 'Copy as Markdown' }).waitFor(); // shown by the script
    const stamps = await page.locator('main time').allTextContents();
    assert.ok(stamps.length > 0);
    for (const stamp of stamps) assert.match(stamp, /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    await page.getByRole('button', { name: 'Copy as Markdown' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).first().waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.ok(copied.startsWith('## cardgate: agent card validation'));
    assert.ok(copied.includes(`[Full report](${service.url}${reportPath})`));
    assert.ok(await page.evaluate(() => (document.querySelector('img[alt="cardgate badge"]') as HTMLImageElement).naturalWidth > 0), 'the badge image loads');
  });

  it('prints without navigation or buttons', async () => {
    const { page } = browser;
    await page.goto(`${service.url}${reportPath}`);
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('header.top').isVisible(), false);
    assert.equal(await page.getByRole('button', { name: 'Copy as Markdown' }).isVisible(), false);
    await page.emulateMedia({ media: 'screen' });
  });

  it('prints black on white with readable badges and headings, also from a browser in dark mode', async () => {
    const { page } = browser;
    try {
      for (const path of [invalidPath, reportPath]) {
        for (const colorScheme of schemes) {
          await page.emulateMedia({ media: 'print', colorScheme });
          await page.goto(`${service.url}${path}`);
          const { checked, low } = await lowContrastTexts(page, 4.5);
          assert.ok(checked > 0, `${path} printed: visible texts inspected for contrast`);
          assert.deepEqual(low, [], `${path} printed, ${colorScheme}`);
        }
      }
    } finally {
      await page.emulateMedia({ media: 'screen', colorScheme: 'light' });
    }
  });

  it('the rule index and rule pages', async () => {
    await checkEverywhere('/rules', 'rules');
    await checkEverywhere('/rules/compatibility.other-version', 'rule');
    const { page } = browser;
    await page.goto(`${service.url}/rules`);
    await page.getByLabel('Rules of A2A version').selectOption('1.0');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/version=1\.0/);
    assert.equal(await page.locator('a[href="/rules/skills.empty"]').count(), 0, 'a 0.x-only rule is filtered out');
    assert.equal(await page.locator('a[href="/rules/schema.non-empty"]').count(), 1);
  });

  it('the landing page validates a pasted card and links to its report', async () => {
    await checkEverywhere('/', 'landing');
    const { page } = browser;
    await page.goto(`${service.url}/`);
    await page.getByLabel('Agent card (JSON)').fill('{"name": ');
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByRole('alert').filter({ hasText: 'That is not JSON' }).waitFor();
    await page.getByLabel('Agent card (JSON)').fill(JSON.stringify({ ...minimalCard(), name: 7, url: 'https://agent.acme.net/a2a', preferredTransport: 'JSONRPC' }));
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByRole('status').filter({ hasText: /^Invalid 1 error, 0 warnings, score 0\/100\. Open the report$/ }).waitFor();
    await page.getByLabel('Agent card (JSON)').fill(JSON.stringify(minimalCard('Pasted agent'), null, 2));
    await page.getByRole('button', { name: 'Validate' }).click();
    await page.getByRole('link', { name: 'Open the report' }).click();
    await page.getByRole('heading', { name: 'Pasted agent', level: 1 }).waitFor();
    await page.screenshot({ path: join(shots, 'landing-result.png'), fullPage: true });
  });

  it('unknown reports and rules get a 404 page', async () => {
    await checkEverywhere('/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA', 'report-404', 404);
    await checkEverywhere('/rules/no.such-rule', 'rule-404', 404);
    await browser.page.getByRole('heading', { name: 'Rule not found' }).waitFor();
  });

  it('the badge is a well-formed SVG', async () => {
    const { page } = browser;
    await page.goto(`${service.url}/`); // a page whose policy lets it fetch from its server
    for (const [path, status, text] of [[`${reportPath}/badge.svg`, 200, /valid \d+\/100/], ['/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA/badge.svg', 404, /report not found/]] as const) {
      const parsed = await page.evaluate(`fetch(${JSON.stringify(path)}).then(async (res) => {
        const doc = new DOMParser().parseFromString(await res.text(), 'image/svg+xml');
        return { status: res.status, root: doc.documentElement.tagName, errors: doc.getElementsByTagName('parsererror').length, label: doc.documentElement.getAttribute('aria-label') };
      })`) as { status: number; root: string; errors: number; label: string | null };
      assert.deepEqual([parsed.status, parsed.root, parsed.errors], [status, 'svg', 0]);
      assert.match(parsed.label!, text);
    }
  });

  it('the site icon at /favicon.ico, which browsers ask for on every page, loads as an image', async () => {
    const { page } = browser;
    await page.goto(`${service.url}/rules`);
    // With the harness's request routing on, Chromium fails a page's own request for exactly
    // /favicon.ico (it keeps that path for itself): the same route is asked with a query.
    const width = await page.evaluate(`new Promise((resolve) => { const img = new Image(); img.onload = () => resolve(img.naturalWidth); img.onerror = () => resolve(0); img.src = '/favicon.ico?from-page'; })`);
    assert.ok((width as number) > 0, 'the icon decodes');
    await page.setViewportSize({ width: 64, height: 64 });
    await page.goto(`${service.url}/favicon.ico?shown`);
    await page.screenshot({ path: join(shots, 'favicon.png') });
    await page.setViewportSize(sizes[0]);
  });

  it('no page asked another host for anything, and nothing was logged as an error', () => {
    // The unknown report, its badge and the unknown rule, asked for above; nothing else may fail.
    browser.assertClean([
      '404 GET /reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA',
      '404 GET /reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA/badge.svg',
      '404 GET /rules/no.such-rule',
    ]);
  });
});
