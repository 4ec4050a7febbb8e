/**
 * GET /agents/<id> and its badge through the app over a MemoryStore seeded directly: who may read
 * a history (the admin token, a key of the agent's account from an allowed address; anyone else
 * the 404 of an unknown agent), paging a 10 000-report history (bounded pages, every kept entry
 * once, newest first), a page's size, hostile cursors and limits, and the badge's token.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createKey, rotateKey } from '../../src/features/accounts/api-keys.ts';
import { iso } from '../../src/lib/clock.ts';
import { AGENT_HISTORY_LIMIT, type AgentRecord } from '../../src/store/contract/agents.ts';
import { testApp } from '../support/app.ts';

const ADMIN = 'test-admin-token-0123456789';
const REPORTS = 10_000;
const json = (credential?: string, extra: Record<string, string> = {}) => ({ headers: { accept: 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}), ...extra } });

describe('an agent\'s history and badge', () => {
  const t = testApp();
  let agent: AgentRecord;
  let ownKey: string;
  let otherKey: string;
  let fencedKey: string;
  let quiet: AgentRecord;

  before(async () => {
    const now = t.clock.now();
    for (const [id, plan] of [['acct_own', 'team'], ['acct_other', 'pro']] as const) await t.store.createAccount({ id, name: id, plan, created_at: iso(now) });
    ownKey = (await createKey(t.store, 'acct_own', { name: 'ci' }, t.config.keys, now)).secret;
    fencedKey = (await createKey(t.store, 'acct_own', { name: 'fenced', allowed_ips: ['192.0.2.0/24'] }, t.config.keys, now)).secret;
    otherKey = (await createKey(t.store, 'acct_other', { name: 'ci' }, t.config.keys, now)).secret;
    const token = (n: number) => String(n).repeat(43).slice(0, 43);
    agent = (await t.store.ensureAgent({ id: 'agt_billing', account_id: 'acct_own', name: 'acme/<b>billing</b>', first_seen: iso(now), badge_token: token(1) }))!;
    quiet = (await t.store.ensureAgent({ id: 'agt_quiet', account_id: 'acct_own', name: 'acme/quiet', first_seen: iso(now), badge_token: token(2) }))!;
    for (let i = 0; i < REPORTS; i++) {
      await t.store.recordAgentReport({ agent_id: agent.id, report_id: `rpt_${String(i).padStart(5, '0')}`, created_at: iso(now + i * 1000), valid: i % 3 !== 0, score: i % 101, errors: i % 4, warnings: i % 7, branch: null });
    }
    agent = (await t.store.getAgent(agent.id))!;
  });

  const get = (path: string, init: RequestInit = {}) => t.app.request(path, init);

  it('the admin and a key of the agent\'s account read it; another account\'s key, an unknown key, none, or a key from outside its allowed addresses get the unknown agent\'s 404', async () => {
    for (const credential of [ADMIN, ownKey]) assert.equal((await get(`/agents/${agent.id}`, json(credential))).status, 200, 'a reader');
    const unknown = await get('/agents/agt_missing', json(ADMIN));
    assert.equal(unknown.status, 404);
    const unknownBody = await unknown.json();
    for (const credential of [otherKey, 'cardgate_' + 'A'.repeat(43), 'not-a-key', undefined, fencedKey]) {
      const res = await get(`/agents/${agent.id}`, json(credential));
      assert.equal(res.status, 404, `credential ${credential?.slice(0, 12)}`);
      assert.deepEqual(await res.json(), unknownBody, 'the same answer as an unknown agent');
    }
    const claimed = await get(`/agents/${agent.id}`, { headers: { ...json(fencedKey).headers, 'x-forwarded-for': '192.0.2.7' } });
    assert.equal(claimed.status, 404, 'X-Forwarded-For from an untrusted peer is not the client address');
    const from = (remoteAddress: string) => t.app.request(`/agents/${agent.id}`, json(fencedKey), { incoming: { socket: { remoteAddress } } });
    assert.equal((await from('192.0.2.7')).status, 200, 'the fenced key from an allowed address');
    assert.equal((await from('198.51.100.7')).status, 404, 'the fenced key from another address');
    const browser = await get(`/agents/${agent.id}`, { headers: { accept: 'text/html' } });
    assert.equal(browser.status, 404);
    const notFound = await browser.text();
    assert.match(notFound, /<h1>Agent not found<\/h1>/);
    // A link followed from a report page carries no credential: the dashboard's view of the agent reads it with the token or session it holds.
    assert.ok(notFound.includes(`<a href="/dashboard#/agents/${agent.id}">Open it in the dashboard</a>`), 'the dashboard link');
  });

  it('pages through the kept history newest first, each entry once, with the diff link to the one before', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`/agents/${agent.id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, json(ownKey));
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.ok(body.reports.length <= 100);
      for (const e of body.reports) {
        if (e.previous_id) assert.equal(e.diff_url, `http://reports.cardgate.test/reports/${e.previous_id}/diff/${e.id}`);
      }
      seen.push(...body.reports.map((e: { id: string }) => e.id));
      cursor = body.next_cursor;
      pages++;
      assert.ok(pages <= REPORTS / 100 + 1, 'the pages end');
    } while (cursor);
    const kept = Math.min(REPORTS, AGENT_HISTORY_LIMIT);
    assert.equal(seen.length, kept);
    assert.equal(new Set(seen).size, kept);
    assert.deepEqual(seen, [...seen].sort().reverse(), 'newest first');
    assert.equal(seen[0], `rpt_${String(REPORTS - 1).padStart(5, '0')}`);
  });

  it('a page of 100 reports is small, as HTML and as JSON; the chart draws the page', async () => {
    const page = await get(`/agents/${agent.id}?limit=100`, { headers: { authorization: `Bearer ${ownKey}`, accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.equal(page.headers.get('cache-control'), 'private, no-store');
    const html = await page.text();
    assert.ok(html.length < 128 * 1024, `${html.length} characters`);
    assert.equal([...html.matchAll(/<circle /g)].length, 100);
    assert.match(html, /acme\/&#60;b&#62;billing&#60;\/b&#62;/);
    assert.match(html, /rel="next">Older reports/);
    const body = await (await get(`/agents/${agent.id}?limit=100`, json(ownKey))).text();
    assert.ok(body.length < 64 * 1024, `${body.length} characters of JSON`);
  });

  it('the page names the agent\'s account by its name (escaped, the id in its title), not by its id', async () => {
    const now = t.clock.now();
    await t.store.createAccount({ id: 'acct_named', name: 'Acme <Platform>', plan: 'team', created_at: iso(now) });
    const named = (await t.store.ensureAgent({ id: 'agt_named', account_id: 'acct_named', name: 'acme/named', first_seen: iso(now), badge_token: '3'.repeat(43) }))!;
    const html = await (await get(`/agents/${named.id}`, { headers: { authorization: `Bearer ${ADMIN}`, accept: 'text/html' } })).text();
    const row = /<dt>Account<\/dt><dd>(.*?)<\/dd>/.exec(html);
    assert.ok(row, html);
    assert.equal(row[1], '<span title="acct_named">Acme &#60;Platform&#62;</span>');
  });

  it('refuses a limit out of range and a cursor it did not give out, with 400', async () => {
    const forged = (doc: unknown) => Buffer.from(JSON.stringify(doc)).toString('base64url');
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=%%%', `cursor=${forged({ sort: '-created_at', key: "2026'; drop table agents", id: 'x' })}`, `cursor=${forged({ sort: 'name', key: 'a', id: 'x' })}`, `cursor=${'A'.repeat(2000)}`]) {
      const res = await get(`/agents/${agent.id}?${query}`, json(ownKey));
      assert.equal(res.status, 400, query);
      assert.equal((await res.json()).code, 'INVALID_REQUEST');
    }
  });

  it('the badge shows the latest verdict under the agent\'s token; a wrong, missing or another agent\'s token is the unknown agent\'s 404', async () => {
    const ok = await get(`/agents/${agent.id}/badge.svg?token=${agent.badge_token}`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    assert.equal(ok.headers.get('cache-control'), 'public, max-age=300');
    const latest = agent.latest!;
    assert.match(await ok.text(), latest.valid ? new RegExp(`valid ${latest.score}/100`) : /invalid/);
    const unknown = await get(`/agents/agt_missing/badge.svg?token=${agent.badge_token}`);
    assert.equal(unknown.status, 404);
    const unknownSvg = await unknown.text();
    for (const query of ['', '?token=', `?token=${agent.badge_token.slice(0, -1)}x`, `?token=${quiet.badge_token}`, `?token=${agent.badge_token}${agent.badge_token}`]) {
      const res = await get(`/agents/${agent.id}/badge.svg${query}`);
      assert.equal(res.status, 404, query);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.equal(await res.text(), unknownSvg);
    }
    const none = await get(`/agents/${quiet.id}/badge.svg?token=${quiet.badge_token}`);
    assert.equal(none.status, 200);
    assert.match(await none.text(), /no reports/);
  });

  it('an over-long id or token is an unknown agent or a wrong token (their 404, as the report routes answer), not a 400 the OpenAPI does not declare', async () => {
    const long = 'a'.repeat(10_000);
    const notFoundSvg = await (await get(`/agents/agt_missing/badge.svg?token=${agent.badge_token}`)).text();
    for (const path of [`/agents/${agent.id}/badge.svg?token=${long}`, `/agents/${long}/badge.svg?token=${agent.badge_token}`]) {
      const res = await get(path);
      assert.equal(res.status, 404, path.slice(0, 40));
      assert.equal(res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
      assert.equal(await res.text(), notFoundSvg);
    }
    const unknownBody = await (await get('/agents/agt_missing', json(ADMIN))).json();
    const history = await get(`/agents/${long}`, json(ADMIN));
    assert.equal(history.status, 404);
    assert.deepEqual(await history.json(), unknownBody);
    const page = await get(`/agents/${long}`, { headers: { accept: 'text/html', authorization: `Bearer ${ADMIN}` } });
    assert.equal(page.status, 404);
    const text = await page.text();
    assert.match(text, /<h1>Agent not found<\/h1>/);
    assert.ok(!text.includes('/dashboard#/agents/'), 'no link echoes an id no agent could have');
  });

  it('the history shows the badge address to its readers only', async () => {
    const body = await (await get(`/agents/${agent.id}`, json(ownKey))).json();
    assert.equal(body.badge_url, `http://reports.cardgate.test/agents/${agent.id}/badge.svg?token=${agent.badge_token}`);
    assert.equal(body.agent.badge_token, undefined);
    const listed = await (await get('/admin/api/agents', json(ADMIN))).text();
    assert.ok(!listed.includes(agent.badge_token), 'the admin list holds no badge token');
  });
  it('an expired key, or a rotated secret past its grace, reads no history: the unknown agent\'s 404 (at the expiry\'s millisecond; 1 ms before it reads)', async () => {
    const now = t.clock.now();
    const expiring = await createKey(t.store, 'acct_own', { name: 'expiring', expires_at: iso(now + 60_000) }, t.config.keys, now);
    const rotatedAway = (await createKey(t.store, 'acct_own', { name: 'rotated' }, t.config.keys, now)).secret;
    await rotateKey(t.store, (await t.store.listKeys('acct_own')).find((k) => k.name === 'rotated')!.id, {}, { ...t.config.keys, rotationGraceHours: 0 }, now);
    const unknownBody = await (await get('/agents/agt_missing', json(ADMIN))).json();
    try {
      t.clock.set(now + 60_000 - 1);
      assert.equal((await get(`/agents/${agent.id}`, json(expiring.secret))).status, 200, '1 ms before its expiry');
      t.clock.set(now + 60_000);
      for (const credential of [expiring.secret, rotatedAway]) {
        const res = await get(`/agents/${agent.id}`, json(credential));
        assert.equal(res.status, 404, `credential ${credential.slice(0, 14)}`);
        assert.deepEqual(await res.json(), unknownBody);
      }
    } finally {
      t.clock.set(now);
    }
  });
});
