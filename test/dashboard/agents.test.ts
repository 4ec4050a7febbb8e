/**
 * End-to-end: the dashboard's Agents view in headless Chromium against the real server, at
 * 1280x800 and 390x844: the list (search, a sort, pages), then one agent's history (score chart,
 * timeline with report and diff links, badge), with agents made by keyed validations; an agent's
 * branches (each report's, one branch kept, the default branch set); the list filtered by the
 * badge's verdict beside the account, at both widths; deleting an agent from its
 * history page, confirmed first (cancelled, nothing deleted).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ADMIN_TOKEN, screenshotDir, startBrowser, startService } from '../support/browser.ts';
import { legibleChart } from '../pages/chart-legibility.ts';
import { sampleCard } from '../support/endpoints.ts';

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;
let billingId: string;
let branchedId: string;
let accountId: string;

const call = async (path: string, body: unknown, token: string) => {
  const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${path}: ${res.status} ${await res.clone().text()}`);
  return res.json() as Promise<any>;
};

/** 27 agents (more than a page of 25); `acme/billing` validated three times: valid, broken, fixed; `acme/branched` on two branches. */
before(async () => {
  service = await startService();
  browser = await startBrowser(service.url);
  const { account } = await call('/admin/api/accounts', { name: 'Acme', plan: 'pro' }, ADMIN_TOKEN);
  accountId = account.id;
  const { secret } = await call(`/admin/api/accounts/${account.id}/keys`, { name: 'ci' }, ADMIN_TOKEN);
  const validate = (agent: string, card: unknown) => call('/v1/validate', { agent_card: card, options: { agent } }, secret);
  for (let i = 0; i < 25; i++) await validate(`acme/agent-${String(i).padStart(2, '0')}`, sampleCard());
  const broken = { ...sampleCard(), url: 'not a url' };
  // An agent of two branches: main valid, then a pull request's branch broken (made before billing: the list's order stays).
  for (const [branch, card] of [['main', sampleCard()], ['feature-x', broken], ['main', sampleCard()]] as const) {
    branchedId = (await call('/v1/validate', { agent_card: card, options: { agent: 'acme/branched', branch } }, secret)).agent.id;
  }
  for (const card of [sampleCard(), broken, sampleCard()]) billingId = (await validate('acme/billing', card)).agent.id;
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

test('the Agents view lists the agents a page at a time, searches them and opens one\'s history', async () => {
  const { page } = browser;
  await page.goto(`${service.url}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
  // The heading shows while the list loads: its pager says when it is there.
  await page.getByText('Page 1 · 25 shown').waitFor();
  const rows = page.locator('table tbody tr');
  assert.equal(await rows.count(), 25, 'a page of 25');
  assert.equal(await rows.first().locator('td').first().innerText(), 'acme/billing', 'most recently seen first');
  await page.getByRole('link', { name: 'Next page →' }).click();
  await page.getByText('Page 2 · 2 shown').waitFor();
  await browser.screenshot('agents-list-page-2');

  await page.getByLabel('Search agents').fill('BILLING');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText('Page 1 · 1 shown').waitFor();
  await page.getByRole('link', { name: 'acme/billing' }).click();
  await page.getByRole('heading', { name: 'acme/billing', level: 1 }).waitFor();
  assert.equal(await page.locator('svg.score-chart circle').count(), 3, 'a dot per report');
  assert.equal(await page.locator('svg.score-chart circle.bad').count(), 1, 'the broken one');
  assert.equal(await page.getByRole('link', { name: 'What changed' }).count(), 2, 'a diff per report but the first');
  const diff = await page.getByRole('link', { name: 'What changed' }).first().getAttribute('href');
  assert.match(diff!, new RegExp(`^${service.url}/reports/rpt_[^/]+/diff/rpt_`));
  assert.match(await page.locator('pre.snippet').innerText(), new RegExp(`/agents/${billingId}/badge\\.svg\\?token=`));
  await browser.screenshot('agents-history');
  browser.assertClean();
});

test('an agent\'s score chart draws a line per branch with a legend, the default branch\'s first; its time labels legible at 1280 and 390 px, light and dark', async () => {
  const { page } = browser;
  for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme });
      await page.goto(`${service.url}/dashboard#/agents/${encodeURIComponent(branchedId)}`);
      await page.getByRole('heading', { name: 'acme/branched', level: 1 }).waitFor();
      const seen = await legibleChart(page, `${size.width} ${colorScheme}`);
      assert.deepEqual(seen.legend, ['main (default branch)', 'feature-x']);
      assert.equal(await page.locator('svg.score-chart[role="img"] polyline.line.main').count(), 1, 'main\'s two reports: its line, emphasised');
      assert.equal(await page.locator('svg.score-chart[role="img"] polyline').count(), 1, 'feature-x\'s one report: a dot, no line');
      await browser.assertNoSidewaysScrolling();
      await page.locator('section[aria-labelledby="agent-score-title"]').screenshot({ path: `${screenshotDir}/agents-chart-${size.width}-${colorScheme}.png` });
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  browser.assertClean();
});

test('an agent\'s history shows each report\'s branch, keeps one branch, and its default branch is set there', async () => {
  const { page } = browser;
  await page.goto(`${service.url}/dashboard#/agents/${encodeURIComponent(branchedId)}`);
  await page.getByRole('heading', { name: 'acme/branched', level: 1 }).waitFor();
  // The account by its name, linked to its page.
  assert.equal(await page.locator('h1 + p.muted a').first().getAttribute('href'), `#/accounts/${accountId}`);
  assert.equal(await page.locator('h1 + p.muted a').first().textContent(), 'Acme');
  const branches = page.locator('table tbody tr td:nth-child(3)');
  assert.deepEqual(await branches.allInnerTexts(), ['main', 'feature-x', 'main']);
  // "What changed" within a branch: main's newest report is compared with main's first, not with feature-x.
  const diff = (await page.getByRole('link', { name: 'What changed' }).first().getAttribute('href'))!;
  // Ids are shown short: the whole id is the code's data-id (what a copy of it gives).
  const ids = await page.locator('table tbody tr td:nth-child(2) code').evaluateAll((codes) => codes.map((c) => (c as HTMLElement).dataset.id));
  assert.equal(diff, `${service.url}/reports/${ids[2]}/diff/${ids[0]}`);
  await page.getByRole('link', { name: 'feature-x', exact: true }).click(); // exact: a dot of the chart names its branch too
  await page.getByRole('heading', { name: 'Reports, newest first of branch feature-x' }).waitFor();
  assert.equal(await page.locator('table tbody tr').count(), 1);
  await browser.screenshot('agents-history-branch');
  await page.getByRole('link', { name: 'Every branch' }).click();
  await page.getByRole('heading', { name: 'Reports, newest first', exact: true }).waitFor();
  await page.getByLabel('Branch', { exact: true }).fill('feature-x');
  await page.getByRole('button', { name: 'Save default branch' }).click();
  await page.getByText('Saved: the default branch of "acme/branched" is feature-x.').waitFor();
  const history = await fetch(`${service.url}/agents/${branchedId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/json' } }).then((r) => r.json());
  assert.equal(history.agent.default_branch, 'feature-x');
  const badge = await fetch(history.badge_url).then((r) => r.text());
  assert.match(badge, /invalid/, 'the badge follows the default branch');
  await browser.screenshot('agents-history-default-branch');
  browser.assertClean();
});

test('the Agents view filters by the verdict the badge shows, beside the account, kept in the address', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${service.url}/dashboard#/agents`);
  await page.getByText('Page 1 · 25 shown').waitFor();
  // acme/branched's default branch is feature-x now (the test before): its badge fails, every other agent's passes.
  await page.getByLabel('Badge').selectOption({ label: 'Failing' });
  await page.getByText('Page 1 · 1 shown').waitFor();
  assert.deepEqual(await page.locator('table tbody tr td:first-child').allInnerTexts(), ['acme/branched']);
  assert.match(page.url(), /#\/agents\?(.*&)?verdict=fail/);
  await browser.screenshot('agents-list-failing');
  await page.getByLabel('Account').selectOption({ label: 'Acme' });
  await page.getByText('Page 1 · 1 shown').waitFor();
  assert.match(page.url(), new RegExp(`account=${accountId}`));
  assert.match(page.url(), /verdict=fail/, 'the verdict kept when the account is chosen');
  assert.equal(await page.getByLabel('Badge').inputValue(), 'fail');
  await page.getByLabel('Badge').selectOption({ label: 'Passing' });
  await page.getByText('Page 1 · 25 shown').waitFor();
  assert.equal(await page.getByRole('link', { name: 'acme/branched' }).count(), 0, 'the failing one left out');
  // Opened from its address: the filters are read back from the hash.
  await page.goto(`${service.url}/dashboard#/agents?verdict=fail`);
  await page.getByText('Page 1 · 1 shown').waitFor();
  assert.equal(await page.getByLabel('Badge').inputValue(), 'fail');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByText('Page 1 · 1 shown').waitFor();
  await browser.assertNoSidewaysScrolling();
  await browser.screenshot('agents-list-failing-phone');
  browser.assertClean();
});

test('the Agents view\'s Latest is the default branch\'s, labelled with it; the Branch filter keeps one branch\'s agents with that branch\'s latest, beside the other filters, kept in the address', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${service.url}/dashboard#/agents?q=branched`);
  await page.getByText('Page 1 · 1 shown').waitFor();
  // acme/branched's default branch is feature-x (set above), whose latest is broken; its newest report of any branch (main) is valid.
  const cells = page.locator('table tbody tr').first().locator('td');
  assert.deepEqual((await cells.allInnerTexts()).slice(0, 5), ['acme/branched', 'invalid', '0', 'feature-x', '3']);
  await page.getByText('Latest and Score are of each agent\'s default branch (Branch), as its badge shows them.').waitFor();
  await page.goto(`${service.url}/dashboard#/agents`);
  await page.getByText('Page 1 · 25 shown').waitFor();
  const branch = page.getByLabel('Branch', { exact: true });
  assert.deepEqual(await page.locator('#agent-branches option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)), ['feature-x', 'main'], 'the branches the page shows, suggested');
  await branch.fill('feature-x');
  await branch.press('Enter');
  await page.getByText('Page 1 · 1 shown').waitFor();
  assert.match(page.url(), /#\/agents\?(.*&)?branch=feature-x/);
  assert.deepEqual((await cells.allInnerTexts()).slice(0, 5), ['acme/branched', 'invalid', '0', 'feature-x', '1'], 'the branch\'s own latest and reports');
  await browser.screenshot('agents-list-branch');
  await page.getByLabel('Verdict').selectOption({ label: 'Passing' });
  await page.getByText('No agent matches these filters.').waitFor();
  assert.match(page.url(), /branch=feature-x/, 'the branch kept when the verdict is chosen');
  await page.goto(`${service.url}/dashboard#/agents?branch=main&verdict=pass&account=${accountId}`);
  await page.getByText('Page 1 · 25 shown').waitFor();
  assert.equal(await branch.inputValue(), 'main', 'read back from the address');
  await page.goto(`${service.url}/dashboard#/agents?branch=main&verdict=fail`);
  await page.getByText('No agent matches these filters.').waitFor();
  await page.goto(`${service.url}/dashboard#/agents?branch=feature-x`);
  await page.getByText('Page 1 · 1 shown').waitFor();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByText('Page 1 · 1 shown').waitFor();
  await browser.assertNoSidewaysScrolling();
  await browser.screenshot('agents-list-branch-phone');
  await branch.fill('');
  await branch.press('Enter');
  await page.getByText('Page 1 · 25 shown').waitFor();
  assert.doesNotMatch(page.url(), /branch=/, 'emptied: every branch');
  await page.goto(`${service.url}/dashboard#/agents/${encodeURIComponent(branchedId)}`);
  await page.getByRole('heading', { name: 'acme/branched', level: 1 }).waitFor();
  assert.equal(await page.locator('p.agent-latest').innerText(), 'Default branch feature-x: invalid score 0 · newest of any branch: valid score 70 on main');
  await browser.assertNoSidewaysScrolling();
  await browser.screenshot('agents-history-latest-phone');
  await page.setViewportSize({ width: 1280, height: 800 });
  browser.assertClean();
});

test('on a phone the list and the history stack without sideways scrolling', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 390, height: 844 });
  // From another view: the history is drawn again at this width.
  await page.goto(`${service.url}/dashboard#/agents`);
  await page.getByText('Page 1 · 25 shown').waitFor();
  await browser.assertNoSidewaysScrolling();
  await page.goto(`${service.url}/dashboard#/agents/${encodeURIComponent(billingId)}`);
  await page.getByRole('heading', { name: 'acme/billing', level: 1 }).waitFor();
  await browser.assertNoSidewaysScrolling();
  await browser.screenshot('agents-history-phone');
  await page.goto(`${service.url}/dashboard#/agents/${encodeURIComponent(branchedId)}`);
  await page.getByRole('heading', { name: 'acme/branched', level: 1 }).waitFor();
  await browser.assertNoSidewaysScrolling();
  await browser.screenshot('agents-history-branches-phone');
  await page.goto(`${service.url}/dashboard#/agents/agt_missing`);
  await page.getByRole('heading', { name: 'Agent not found', level: 1 }).waitFor();
  browser.assertClean(['404 GET /agents/agt_missing?limit=50']);
});

test('an agent is deleted from its history page once confirmed; cancelled, it stays', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${service.url}/dashboard#/agents/${encodeURIComponent(billingId)}`);
  await page.getByRole('heading', { name: 'acme/billing', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Delete agent' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Its history of 3 reports').waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  const kept = await fetch(`${service.url}/agents/${billingId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/json' } });
  assert.equal(kept.status, 200, 'cancelled: nothing deleted');

  await page.getByRole('button', { name: 'Delete agent' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete agent' }).click();
  await page.getByText('Agent "acme/billing" deleted.').waitFor();
  await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
  await page.getByText('Page 1 · 25 shown').waitFor();
  assert.equal(await page.getByRole('link', { name: 'acme/billing' }).count(), 0, 'gone from the list');
  const gone = await fetch(`${service.url}/agents/${billingId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/json' } });
  assert.equal(gone.status, 404);
  await browser.screenshot('agents-deleted');
  // The failures are the whole file's: the previous test's unknown agent, none of this one.
  browser.assertClean(['404 GET /agents/agt_missing?limit=50']);
});
