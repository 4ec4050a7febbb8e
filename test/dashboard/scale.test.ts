/**
 * End-to-end: the dashboard at scale, in headless Chromium against the real server process, with
 * 1,000 accounts and 10,000 reports written into its data dir before it starts. Every view is
 * checked at desktop (1280x800) and phone (390x844) width: paged, searched and sorted on the
 * server, of a sane height, never wider than the screen; loading and failing views replace what
 * was shown; forms name every bad value at its field; risky changes ask first.
 * Screenshots go to test-artifacts/dashboard/scale-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DAY_MS, nextUtcMidnight, utcDay } from '../../src/lib/clock.ts';
import { openFileStore } from '../../src/store/file/file-store.ts';
import { tempDirFactory } from '../support/temp.ts';
import { ADMIN_TOKEN, startBrowser, startService } from '../support/browser.ts';
import { awaitWindowRoom } from '../support/windows.ts';

const newDataDir = tempDirFactory('cardgate-dash-scale-');
const ACCOUNTS = 1000;
const REPORTS = 10_000;
const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const plans = ['free', 'pro', 'team'] as const;
/** Account i: "Org 0007 beta" etc.; ids sort like i. */
const accountName = (i: number) => `Org ${String(i).padStart(4, '0')} ${['alpha', 'beta', 'gamma', 'delta'][i % 4]}`;
const accountId = (i: number) => `acct_seed_${String(i).padStart(4, '0')}`;
const agentName = (i: number) => `Agent ${String(i).padStart(5, '0')}`;

let service: Awaited<ReturnType<typeof startService>>;
let browser: Awaited<ReturnType<typeof startBrowser>>;

const seed = async (dataDir: string) => {
  const store = await openFileStore({ dataDir });
  const now = Date.now();
  for (let i = 0; i < ACCOUNTS; i++) {
    await store.createAccount({ id: accountId(i), name: accountName(i), plan: plans[i % 3]!, created_at: new Date(now - (ACCOUNTS - i) * 60_000).toISOString() });
  }
  for (let i = 0; i < REPORTS; i++) {
    const errors = i % 7 === 0 ? 2 : 0;
    await store.putReport({
      id: `rpt_seed_${String(i).padStart(5, '0')}`,
      kind: i % 50 === 0 ? 'webhook' : 'single',
      created_at: new Date(now - (REPORTS - i) * 30_000).toISOString(),
      account_id: i % 3 === 0 ? null : accountId(i % ACCOUNTS),
      version: '0.3.0',
      card: { name: agentName(i) },
      result: { valid: errors === 0, score: i % 101, errors: Array.from({ length: errors }, () => ({ message: 'bad' })), warnings: [] },
    });
  }
  // Accounts 0..9 used the service today (account 0: 7 of its free plan's 10).
  for (let i = 0; i < 10; i++) {
    await store.consume([{ key: `daily:acct:${accountId(i)}`, amount: 7 - (i % 3), limit: -1, reset_at: nextUtcMidnight(now) }], now, {
      usage: { account_id: accountId(i), day: utcDay(now) },
    });
  }
  await store.commit();
  await store.close();
};

before(async () => {
  // The usage is seeded under today and read back as today's: the run must not cross 00:00 UTC.
  await awaitWindowRoom(DAY_MS, 5 * 60_000);
  const dataDir = newDataDir();
  await seed(dataDir);
  service = await startService({ dataDir });
  browser = await startBrowser(service.url);
  const { page } = browser;
  await page.goto(`${service.url}/dashboard`);
  await page.evaluate((token) => sessionStorage.setItem('cardgate.adminToken', token), ADMIN_TOKEN);
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

const open = async (hash: string, heading: string) => {
  const { page } = browser;
  await page.goto(`${service.url}/dashboard${hash}`);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  await page.locator('#view:not([aria-busy])').waitFor();
};

/** Runs `check` at both sizes, after a screenshot named after it. */
const atBothSizes = async (name: string, check: (size: (typeof SIZES)[number]) => Promise<void>) => {
  for (const size of SIZES) {
    await browser.page.setViewportSize({ width: size.width, height: size.height });
    await check(size);
    await browser.screenshot(`scale-${name}-${size.name}`);
    await assertFits(browser.page, size);
  }
};

/** No sideways scrolling, and a page of 25 rows stays a few screens tall. */
const assertFits = async (page: Page, size: (typeof SIZES)[number]) => {
  const { overflow, height } = await page.evaluate(() => ({ overflow: document.documentElement.scrollWidth - window.innerWidth, height: document.documentElement.scrollHeight }));
  assert.ok(overflow <= 0, `no sideways scrolling at ${size.width}px (overflow ${overflow}px)`);
  assert.ok(height < (size.name === 'phone' ? 14_000 : 5_000), `the page is ${height}px tall at ${size.width}px`);
};

const rowCount = (caption: string) => browser.page.locator('table').filter({ has: browser.page.locator('caption', { hasText: new RegExp(`^${caption}$`) }) }).locator('tbody tr').count();
/** Sorts by a column head's link (desktop) or, where phones hide the heads, the "Sort by" list. */
const sortBy = async (size: (typeof SIZES)[number], head: string, value: string) => {
  const { page } = browser;
  if (size.name === 'desktop') await page.getByRole('columnheader', { name: head }).getByRole('link').click();
  else await page.getByLabel('Sort by').selectOption(value);
};
const cellTexts = (label: string) => browser.page.locator(`td[data-label="${label}"]`).allInnerTexts();

test('accounts: 25 a page, searched, sorted by a column head, paged by the server', async () => {
  await atBothSizes('accounts', async (size) => {
    const { page } = browser;
    await open('#/accounts', 'Accounts');
    assert.equal(await rowCount('Accounts'), 25);
    assert.equal((await cellTexts('Name'))[0], accountName(0));
    assert.equal(await page.getByRole('button', { name: /^Delete account/ }).count(), 25);

    await page.getByRole('link', { name: 'Next page →' }).click();
    await page.getByText('Page 2 · 25 shown').waitFor();
    assert.equal((await cellTexts('Name'))[0], accountName(25));

    await sortBy(size, 'Name', '-name');
    await page.locator('th[aria-sort="descending"]').waitFor({ state: 'attached' });
    assert.equal((await cellTexts('Name'))[0], accountName(ACCOUNTS - 1));

    await page.getByLabel('Search accounts').fill('0042');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: 'Clear' }).waitFor();
    assert.deepEqual(await cellTexts('Name'), [accountName(42)]);
    assert.equal(await page.getByRole('link', { name: 'Next page →' }).count(), 0);
  });
});

test('reports: agent name, verdict, score, errors, kind and account; sorted, searched and paged', async () => {
  await atBothSizes('reports', async (size) => {
    const { page } = browser;
    await open('#/reports', 'Reports');
    assert.equal(await rowCount('Reports'), 25);
    const newest = REPORTS - 1;
    assert.equal((await cellTexts('Agent'))[0], agentName(newest));
    assert.equal((await cellTexts('Score'))[0], String(newest % 101));
    assert.equal((await cellTexts('Errors'))[0], newest % 7 === 0 ? '2' : '0');
    assert.equal((await cellTexts('Kind'))[0], 'single');
    assert.deepEqual((await cellTexts('Account')).slice(0, 2), ['anonymous', accountName((newest - 1) % ACCOUNTS)]); // every third is anonymous
    assert.match((await cellTexts('Verdict'))[0]!, /^(valid|invalid)$/);

    await sortBy(size, 'Score', 'score');
    await page.locator('th[aria-sort="ascending"]').waitFor({ state: 'attached' });
    assert.deepEqual(await cellTexts('Score'), Array(25).fill('0'), 'a full page, every score 0');
    await sortBy(size, 'Score', '-score');
    await page.locator('th[aria-sort="descending"]').waitFor({ state: 'attached' });
    assert.deepEqual(await cellTexts('Score'), Array(25).fill('100'), 'a full page, every score 100');
    const firstPage = await cellTexts('Agent');
    await page.getByRole('link', { name: 'Next page →' }).click();
    await page.getByText('Page 2 · 25 shown').waitFor();
    const secondPage = await cellTexts('Agent');
    assert.equal(secondPage.filter((name) => firstPage.includes(name)).length, 0, 'pages do not overlap');

    await page.getByLabel('Search reports').fill('0123');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: 'Clear' }).waitFor();
    assert.deepEqual((await cellTexts('Agent')).sort(), [agentName(123), ...Array.from({ length: 10 }, (_, i) => agentName(1230 + i))].sort());
  });
});

test("usage: today's count against the plan's limit, busiest accounts charted, the rest paged and filtered", async () => {
  await atBothSizes('usage', async (size) => {
    const { page } = browser;
    await open('#/usage', 'Usage');
    assert.equal(await page.locator('section.card svg.chart').count(), 5, 'only the busiest are charted');
    const first = page.getByRole('row').filter({ hasText: accountName(0) });
    await first.getByText('Used 7 of 10 today').waitFor();
    await page.getByLabel('Show').selectOption('idle');
    await page.getByText(`Page 1 of ${Math.ceil((ACCOUNTS - 10) / 25)} · ${ACCOUNTS - 10} accounts`).waitFor();
    assert.equal(await rowCount('Usage per account'), 25);
    await page.getByLabel('Find an account').fill('0999');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('Page 1 of 1 · 1 account').waitFor();
    assert.deepEqual(await cellTexts('Account'), [accountName(999)]);
    await browser.screenshot(`scale-usage-list-${size.name}`);

    await open(`#/accounts/${accountId(1)}`, accountName(1));
    await page.getByText('Used 6 today (no daily limit)').waitFor();
    await open(`#/accounts/${accountId(3)}`, accountName(3));
    await page.getByText('Used 7 of 10 today', { exact: true }).waitFor();
  });
});

test('loading replaces the view at once; an unknown account shows "not found", never the last account\'s buttons', async () => {
  await atBothSizes('not-found', async () => {
    const { page } = browser;
    await open(`#/accounts/${accountId(5)}`, accountName(5));
    assert.equal(await page.getByRole('button', { name: 'Delete account' }).count(), 1);
    // Held until the test has seen the loading view.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/admin/api/accounts/acct_nobody**', async (route) => {
      await held;
      await route.continue();
    });
    await page.evaluate(() => (location.hash = '#/accounts/acct_nobody'));
    await page.getByRole('status').filter({ hasText: 'Loading…' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Delete account' }).count(), 0, 'the previous account is gone while loading');
    assert.equal(await page.locator('#view').getAttribute('aria-busy'), 'true');
    release();
    await page.getByRole('heading', { name: 'Account not found', level: 1 }).waitFor();
    await page.getByText('account acct_nobody not found').waitFor();
    assert.equal(await page.getByRole('button', { name: /Delete/ }).count(), 0);
    await page.getByRole('link', { name: 'All accounts' }).waitFor();
    await page.unroute('**/admin/api/accounts/acct_nobody**');
  });
});

test('server down: the view becomes an error with Retry, which loads it once the server answers', async () => {
  await atBothSizes('server-down', async () => {
    const { page } = browser;
    await open('#/accounts', 'Accounts');
    await page.route('**/admin/api/**', (route) => route.abort('connectionrefused'));
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'The server is not answering', level: 1 }).waitFor();
    assert.equal(await page.locator('table').count(), 0, 'the accounts table is gone');
    assert.equal(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Usage' }).getAttribute('aria-current'), 'page');
    const retry = page.getByRole('button', { name: 'Retry' });
    assert.ok(await retry.evaluate((el) => el === document.activeElement), 'focus is on Retry');
    await page.unroute('**/admin/api/**');
    await retry.click();
    await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
  });
});

test('forms: every bad value is named at its field, in words, not API field names', async () => {
  const team = accountId(2); // plans cycle free, pro, team
  await atBothSizes('field-errors', async () => {
    const { page } = browser;
    await open(`#/accounts/${team}`, accountName(2));
    await page.getByLabel('Key name').fill('ci');
    await page.getByLabel('Allowed IPs (optional)').fill('10.0.0.1, nope, 10.0.0.0/40');
    await page.getByRole('button', { name: 'Create key' }).click();
    const errors = page.locator('#new-key-ips-errors li');
    await errors.nth(1).waitFor();
    assert.equal(await errors.count(), 2);
    assert.match(await errors.nth(0).innerText(), /"nope"/);
    assert.match(await errors.nth(1).innerText(), /"10\.0\.0\.0\/40"/);
    const ips = page.getByLabel('Allowed IPs (optional)');
    assert.equal(await ips.getAttribute('aria-invalid'), 'true');
    assert.ok(await ips.evaluate((el) => el === document.activeElement), 'focus moves to the bad field');
    await page.getByRole('alert').filter({ hasText: 'Check the marked fields: Allowed IPs:' }).waitFor();
    assert.ok(!(await page.locator('main').innerText()).includes('allowed_ips'));
  });
});

test('a new key shows how to use it: a curl command against this server, with a copy button', async () => {
  await atBothSizes('key-snippet', async ({ name }) => {
    const { page } = browser;
    await open(`#/accounts/${accountId(4)}`, accountName(4));
    await page.getByLabel('Key name').fill(`snippet ${name}`);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('status').filter({ hasText: `Key "snippet ${name}" created.` }).waitFor();
    const secret = await page.getByLabel('API key', { exact: true }).inputValue();
    const snippet = await page.locator('#key-snippet').innerText();
    assert.ok(snippet.startsWith(`curl -sS -X POST ${service.url}/v1/validate`), snippet);
    assert.ok(snippet.includes(`Authorization: Bearer ${secret}`));
    await page.getByRole('button', { name: 'Copy command' }).click();
    await page.getByRole('status').filter({ hasText: 'Command copied to the clipboard.' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet);
  });
});

test('a plan downgrade and a duplicate account name ask first; Cancel changes nothing', async () => {
  await atBothSizes('confirm', async ({ name: size }) => {
    const { page } = browser;
    const team = accountId(5); // team
    await open(`#/accounts/${team}`, accountName(5));
    await page.getByLabel('Plan').selectOption('free');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const downgrade = page.getByRole('dialog', { name: `Move "${accountName(5)}" down to the free plan?` });
    await downgrade.getByText('From unlimited validations a day to 10 validations a day.', { exact: false }).waitFor();
    await browser.screenshot(`scale-confirm-downgrade-${size}`, false);
    await downgrade.getByRole('button', { name: 'Cancel' }).click();
    await page.reload();
    await page.getByRole('heading', { name: accountName(5), level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Plan').inputValue(), 'team');

    await open('#/accounts', 'Accounts');
    await page.getByLabel('Name', { exact: true }).fill(accountName(7).toUpperCase());
    await page.getByRole('button', { name: 'Create account' }).click();
    const duplicate = page.getByRole('dialog', { name: `An account named "${accountName(7)}" exists` });
    await duplicate.waitFor();
    await duplicate.getByRole('button', { name: 'Cancel' }).click();
    await page.getByLabel('Search accounts').fill(accountName(7));
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: 'Clear' }).waitFor();
    assert.equal(await rowCount('Accounts'), 1, 'no second account was created');
  });
  // Confirmed, the downgrade happens.
  const { page } = browser;
  await open(`#/accounts/${accountId(8)}`, accountName(8)); // team
  await page.getByLabel('Plan').selectOption('pro');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Change plan' }).click();
  await page.getByRole('status').filter({ hasText: 'is on the pro plan' }).waitFor();
});

/**
 * Every visible text on the page whose contrast with what is behind it is under 4.5:1 (WCAG AA),
 * and how many texts were inspected.
 * Plain JavaScript in a string: the test runner's transform would name the functions with a
 * helper the page does not have.
 */
const LOW_CONTRAST = String.raw`(() => {
  const parse = (css) => {
    const [r = 0, g = 0, b = 0, a = 1] = (/rgba?\(([^)]*)\)/.exec(css)?.[1] ?? '0 0 0 0').split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const over = (top, below) => ({ r: top.r * top.a + below.r * (1 - top.a), g: top.g * top.a + below.g * (1 - top.a), b: top.b * top.a + below.b * (1 - top.a), a: 1 });
  const channel = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const luminance = (c) => 0.2126 * channel(c.r) + 0.7152 * channel(c.g) + 0.0722 * channel(c.b);
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a === 1) break;
    }
    return layers.reverse().reduce((below, top) => over(top, below), { r: 255, g: 255, b: 255, a: 1 });
  };
  const low = [];
  let inspected = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim() || el.closest('.sr-only, [hidden], noscript, dialog:not([open])')) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0 || el.disabled) continue;
    const bg = background(el);
    const fg = over(parse(getComputedStyle(el).color), bg);
    const [hi, lo] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    inspected++;
    if (ratio < 4.5) low.push(node.textContent.trim().slice(0, 40) + ': ' + ratio.toFixed(2));
  }
  return { inspected, low };
})()`;
/** The texts under 4.5:1, after asserting some text was inspected (none would pass every check). */
const lowContrast = async () => {
  const { inspected, low } = await browser.page.evaluate<{ inspected: number; low: string[] }>(LOW_CONTRAST);
  assert.ok(inspected > 0, 'no visible text inspected for contrast');
  return low;
};

test('every text has a contrast of at least 4.5:1, in light and in dark', async () => {
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const [hash, heading] of [['#/accounts', 'Accounts'], ['#/reports?sort=-errors', 'Reports'], ['#/usage', 'Usage'], [`#/accounts/${accountId(2)}`, accountName(2)]] as const) {
      await open(hash, heading);
      assert.deepEqual(await lowContrast(), [], `${hash} in ${colorScheme}`);
    }
    // Field errors, the problem message and the key panel.
    await page.getByLabel('Key name').fill('contrast');
    await page.getByLabel('Allowed IPs (optional)').fill('nope');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key-ips-errors li').waitFor();
    assert.deepEqual(await lowContrast(), [], `field errors in ${colorScheme}`);
    await page.getByLabel('Allowed IPs (optional)').fill('');
    await page.getByLabel('Key name').fill(`contrast ${colorScheme}`);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#key-snippet').waitFor();
    assert.deepEqual(await lowContrast(), [], `the new key's panel in ${colorScheme}`);
    await browser.screenshot(`scale-key-${colorScheme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('the pages sent nothing to any other host and logged no errors', () => {
  // The failures the tests above cause; nothing else may fail.
  browser.assertClean([
    '400 POST /admin/api/accounts/acct_seed_0002/keys', // a key with bad allowed IPs
    '404 GET /admin/api/accounts/acct_nobody', // the unknown account
    '404 GET /admin/api/accounts/acct_nobody/keys',
    '404 GET /admin/api/accounts/acct_nobody/ruleset', // the account view asks for its ruleset beside its keys
    'net::ERR_CONNECTION_REFUSED GET /admin/api/accounts?limit=500&sort=name', // the server down, under the usage view
    'net::ERR_CONNECTION_REFUSED GET /admin/api/usage?days=30',
  ]);
});
