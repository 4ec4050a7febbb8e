/**
 * End-to-end: the dashboard and the public pages for a team of twenty agents, in headless Chromium
 * against the real server, at 1280x800 and 390x844, light and dark: every view and page fits its
 * width with no table cut (nothing past the viewport, nothing to scroll sideways inside a table),
 * every visible text is at least 4.5:1 on what is behind it, the headers show the logo mark; ids
 * are shortened and copied whole; the score chart has a time axis and shows a point's values on
 * hover. The screenshots (test-artifacts/dashboard/product-*) are looked at beside pages users know.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ADMIN_TOKEN, adminApiOf, signInWithToken, startBrowser, startService } from '../support/browser.ts';
import { startCardHost } from '../support/card-host.ts';
import { minimalCard } from '../support/cards.ts';
import { sampleCard } from '../support/endpoints.ts';
import { lowContrastTexts } from '../pages/contrast.ts';
import { openFileStore } from '../../src/store/file/file-store.ts';
import type { MonitorRecord } from '../../src/store/contract/monitors.ts';
import { tempDirFactory } from '../support/temp.ts';

const newDataDir = tempDirFactory('cardgate-dash-product-');

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;
let host: Awaited<ReturnType<typeof startCardHost>>;
const adminApi = adminApiOf(() => service.url);
let acmeId = '';
let billingId = '';
let reportUrl = '';

const call = async (path: string, body: unknown, token: string) => {
  const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
  return res.json() as Promise<any>;
};

/**
 * Monitors in every state a row can show (ok, regressed, unreachable, paused, live), with long
 * names, written into the data dir before the server starts: none is due while the test runs.
 */
const seedMonitors = async (dataDir: string) => {
  const store = await openFileStore({ dataDir });
  const now = Date.now();
  const account_id = 'acct_seed_operations';
  await store.createAccount({ id: account_id, name: 'Operations Watch', plan: 'team', created_at: new Date(now - 86_400_000).toISOString() });
  const at = new Date(now - 600_000).toISOString();
  const states: [string, Partial<MonitorRecord> & Pick<MonitorRecord, 'state' | 'last_run'>][] = [
    ['ok', { state: 'ok', last_run: { at, verdict: 'pass', score: 93, report_id: 'rpt_1764423180000_okokokokokok' } }],
    ['regressed', { state: 'regressed', last_run: { at, verdict: 'fail', score: 64, report_id: 'rpt_1764423180000_regressedrgr' } }],
    ['unreachable', { state: 'unreachable', failures: 3, last_run: { at, verdict: 'unreachable', score: null, report_id: null, error: 'connect ECONNREFUSED' } }],
    ['paused', { state: 'ok', paused: true, last_run: { at, verdict: 'pass', score: 100, report_id: 'rpt_1764423180000_pausedpaused' } }],
    ['live', { state: 'regressed', live: true, last_run: { at, verdict: 'fail', score: 58, report_id: 'rpt_1764423180000_liveliveeliv', live: { duration_ms: 1234, unreachable: false, failed: [] } } }],
  ];
  for (const [i, [name, record]] of states.entries()) {
    const outcome = await store.createMonitor({
      id: `mon_1764423180000_seed${name}`, account_id, url: `https://${name}-billing-agent.operations.example.com/.well-known/agent-card.json`,
      agent: `operations/${name}-billing-agent/.well-known/agent-card.json`, interval_seconds: 7 * 86_400, notify_url: `https://hooks.operations.example.com/cardgate/${name}`,
      live: false, secret: 'whsec_c2VlZGVkLXNlY3JldC1mb3ItdGVzdHM=', paused: false, created_at: at, next_run_at: now + 30 * 86_400_000 + i,
      failures: 0, baseline_report_id: null, last_success_at: at, ...record,
    }, 100);
    assert.equal(outcome, 'created');
  }
  await store.commit();
  await store.close();
};

/** Two accounts and twenty agents, some broken, some on a feature branch; monitors, a trusted key, a ruleset, and so an audit log. */
before(async () => {
  host = await startCardHost({ '/card.json': { body: JSON.stringify(minimalCard('Watched Agent')) } });
  const dataDir = newDataDir();
  await seedMonitors(dataDir);
  service = await startService({ dataDir, config: { cardFetch: { allowedHosts: ['loopback'] }, webhooks: { allowedHosts: ['loopback'] } } });
  browser = await startBrowser(service.url);
  const broken = { ...sampleCard(), url: 'not a url' };
  for (const [name, count] of [['Acme Platform', 14], ['Globex Payments', 6]] as const) {
    const { account } = await call('/admin/api/accounts', { name, plan: 'team' }, ADMIN_TOKEN);
    const { secret } = await call(`/admin/api/accounts/${account.id}/keys`, { name: 'ci' }, ADMIN_TOKEN);
    if (!acmeId) acmeId = account.id;
    for (let i = 0; i < count; i++) {
      const agent = `${name.split(' ')[0]!.toLowerCase()}/service-${String(i).padStart(2, '0')}/agent-card.json`;
      const answer = await call('/v1/validate', { agent_card: i % 4 === 3 ? broken : sampleCard(), options: { agent, branch: 'main' } }, secret);
      if (i === 0) {
        // A history worth a chart: main, a feature branch broken then fixed.
        for (const [branch, card] of [['feature/rename-skills', broken], ['feature/rename-skills', sampleCard()], ['main', sampleCard()]] as const) {
          reportUrl = (await call('/v1/validate', { agent_card: card, options: { agent, branch, include_score: true } }, secret)).report_url;
        }
        billingId ||= answer.agent.id;
      }
    }
  }
  await adminApi('POST', '/monitors', { account_id: acmeId, url: `${host.url}/card.json`, interval_seconds: 3600, notify_url: `${host.url}/hooks/events`, agent: 'acme/service-00/agent-card.json' });
  await adminApi('POST', '/trust-keys', { jwk: { ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), kid: 'release-signing-2026' } });
  const ruleset = await fetch(`${service.url}/admin/api/accounts/${acmeId}/ruleset`, { method: 'PUT', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' }, body: 'extends: cardgate:recommended\nrules:\n  url.https: error\n' });
  assert.equal(ruleset.status, 200);
});

after(async () => {
  await browser?.close();
  await service?.stop();
  await host?.close();
});

/** What is past the viewport's right edge, or cut inside a box that scrolls sideways (a table wider than its wrapper). */
const cutOff = () =>
  browser.page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const cut: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('main *, header *')) {
      if (el.getClientRects().length === 0 || el.closest('svg, dialog:not([open])')) continue;
      const { right, width: own } = el.getBoundingClientRect();
      // Kept for screen readers only (a caption) in a 1 px box. What such a box holds counts: a stacked
      // table's heads laid out past the edge made the page scroll sideways in another browser though clipped here.
      if (own <= 1) continue;
      if (right > width + 1) cut.push(`${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? '').trim().slice(0, 30)}" ends at ${Math.round(right)} of ${width}`);
      const style = getComputedStyle(el);
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll' || style.overflowX === 'hidden') && el.scrollWidth > el.clientWidth + 1 && el.querySelector('table')) {
        cut.push(`${el.tagName.toLowerCase()}.${el.className} scrolls sideways: ${el.scrollWidth} in ${el.clientWidth}`);
      }
    }
    // The page itself: what a phone would scroll sideways to.
    const page = document.documentElement.scrollWidth;
    if (page > width) cut.push(`the page is ${page} px wide in ${width}`);
    return cut.slice(0, 10);
  });

const dashboardViews = () => [
  ['accounts', '#/accounts', 'Accounts'],
  ['account', `#/accounts/${acmeId}`, 'Acme Platform'],
  ['usage', '#/usage', 'Usage'],
  ['reports', '#/reports', 'Reports'],
  ['agents', '#/agents', 'Agents'],
  ['agent', `#/agents/${billingId}`, 'acme/service-00/agent-card.json'],
  ['trust-keys', '#/trust-keys', 'Trust keys'],
  ['monitors', '#/monitors', 'Monitors'],
  ['audit', '#/audit', 'Audit log'],
] as const;

const publicPages = () => [
  ['landing', '/'],
  ['rules', '/rules'],
  ['report', new URL(reportUrl).pathname],
  ['agent-page', `/agents/${billingId}`],
] as const;

for (const scheme of ['light', 'dark'] as const) {
  for (const [width, height] of [[1280, 800], [390, 844]] as const) {
    test(`${scheme}, ${width} px: every dashboard view and public page fits, no table cut, every text at least 4.5:1, the logo in the header`, async () => {
      const { page } = browser;
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height });
      if (!(await page.evaluate(() => Boolean(sessionStorage.getItem('cardgate.adminToken'))).catch(() => false))) await signInWithToken(page, service.url);
      for (const [name, hash, heading] of dashboardViews()) {
        await page.goto(`${service.url}/dashboard${hash}`);
        await page.getByRole('heading', { name: heading, level: 1, exact: true }).waitFor();
        await page.waitForFunction(() => !document.getElementById('view')?.hasAttribute('aria-busy') && !document.querySelector('.loading'));
        await page.locator('header .brand svg.logo').waitFor();
        assert.deepEqual(await cutOff(), [], `dashboard ${name}`);
        const { checked, low } = await lowContrastTexts(page, 4.5);
        assert.ok(checked > 5, `dashboard ${name}: ${checked} texts checked`);
        assert.deepEqual(low, [], `dashboard ${name}: texts under 4.5:1`);
        await browser.screenshot(`product-${scheme}-${width}-dashboard-${name}`);
      }
      for (const [name, path] of publicPages()) {
        // The agent's history page is read with the admin token (or a key of its account, or a dashboard session).
        await page.setExtraHTTPHeaders(name === 'agent-page' ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {});
        await page.goto(`${service.url}${path}`);
        await page.locator('header .brand svg.logo').waitFor();
        assert.deepEqual(await cutOff(), [], `page ${name}`);
        const { low } = await lowContrastTexts(page, 4.5);
        assert.deepEqual(low, [], `page ${name}: texts under 4.5:1`);
        await browser.screenshot(`product-${scheme}-${width}-page-${name}`);
      }
      await page.setExtraHTTPHeaders({});
      browser.assertClean();
    });
  }
}

test('the score chart has a time axis and shows a point\'s time, verdict and score on hover; ids are short and copied whole', async () => {
  const { page } = browser;
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const where of [`/dashboard#/agents/${billingId}`, `/agents/${billingId}`]) {
    await page.setExtraHTTPHeaders(where.startsWith('/agents') ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {});
    await page.goto(`${service.url}${where}`);
    const chart = page.locator('svg.score-chart');
    await chart.waitFor();
    const ticks = await chart.locator('text').allTextContents();
    assert.ok(ticks.some((t) => /^[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}$/.test(t)), `a time axis: ${ticks.join(' | ')}`);
    const point = chart.locator('a.pt').last();
    const tip = point.locator('.tip');
    assert.equal(await tip.evaluate((el) => getComputedStyle(el).opacity), '0', 'no label until hovered');
    await point.locator('circle.dot').hover();
    await page.waitForFunction((el) => getComputedStyle(el!).opacity === '1', await tip.elementHandle());
    // The agent has reports on two branches: the label names the point's.
    assert.match(await tip.textContent() ?? '', /^[A-Z][a-z]{2} \d{1,2} \d{2}:\d{2} UTC · main · valid · score \d+$/);
    await browser.screenshot(`product-chart-hover-${where.startsWith('/dashboard') ? 'dashboard' : 'page'}`, false);
  }
  await page.setExtraHTTPHeaders({});

  await page.goto(`${service.url}/dashboard#/audit`);
  const log = page.getByRole('table', { name: 'Audit log' });
  const target = log.locator('code[data-id]').first();
  await target.waitFor();
  const whole = (await target.getAttribute('data-id'))!;
  assert.match(whole, /^[a-z]+_\d{13}_/);
  assert.ok((await target.textContent())!.length < 16, `shown short: ${await target.textContent()}`);
  await log.getByRole('button', { name: `Copy the id ${whole}` }).first().click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), whole);
  // A selection of the short form copies the whole id too.
  await target.selectText();
  await page.keyboard.press('Control+C');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), whole);
  // The ruleset's hash the audit records (71 characters) the same way: short, whole in its title and on copy.
  const hash = log.locator('code[data-id^="sha256:"]').first();
  const wholeHash = (await hash.getAttribute('data-id'))!;
  assert.match(wholeHash, /^sha256:[0-9a-f]{64}$/);
  assert.equal(await hash.getAttribute('title'), wholeHash);
  assert.match((await hash.textContent())!, /^sha256:\u2026[0-9a-f]{7}$/);
  await log.getByRole('button', { name: `Copy the id ${wholeHash}` }).first().click();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), wholeHash);
  browser.assertClean();
});

test('the fields of a row of a form or of filters have their labels at one height, and its button and checkbox level with the controls, at 1280 px', async () => {
  const { page } = browser;
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const [name, hash, heading] of dashboardViews()) {
    await page.goto(`${service.url}/dashboard${hash}`);
    await page.getByRole('heading', { name: heading, level: 1, exact: true }).waitFor();
    await page.waitForFunction(() => !document.getElementById('view')?.hasAttribute('aria-busy') && !document.querySelector('.loading'));
    const uneven = await page.evaluate(() => {
      const found: string[] = [];
      for (const row of document.querySelectorAll<HTMLElement>('main .row')) {
        // Per line of the row (a narrow row wraps): the tops of its labels, and of its controls beside its buttons' and checkboxes'.
        const lines = new Map<number, { labels: [string, number][]; controls: [string, number][] }>();
        for (const item of row.children) {
          const line = Math.round(item.getBoundingClientRect().top / 4);
          const at = lines.get(line) ?? { labels: [], controls: [] };
          lines.set(line, at);
          const label = item.matches('.field:not(.check)') ? item.querySelector(':scope > label') : null;
          if (label) at.labels.push([label.textContent!, Math.round(label.getBoundingClientRect().top)]);
          const control = item.matches('.field.check') ? item.querySelector('label') : label ? item.querySelector('input, select, textarea') : item;
          if (control) {
            const box = control.getBoundingClientRect();
            at.controls.push([(label?.textContent ?? control.textContent)!, Math.round(box.top + box.height / 2)]);
          }
        }
        for (const { labels, controls } of lines.values()) {
          if (new Set(labels.map(([, top]) => top)).size > 1) found.push(`labels ${labels.map(([t, y]) => `${t}@${y}`).join(', ')}`);
          const middles = controls.map(([, y]) => y);
          if (Math.max(...middles) - Math.min(...middles) > 3) found.push(`controls ${controls.map(([t, y]) => `${t}@${y}`).join(', ')}`);
        }
      }
      return found;
    });
    assert.deepEqual(uneven, [], `dashboard ${name}`);
  }
});
