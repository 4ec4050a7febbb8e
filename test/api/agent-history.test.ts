/**
 * Black-box, over HTTP: an agent's history after keyed validations (both reports listed, the diff
 * link between them answering), another account's key refused as an unknown agent, the badge under
 * its token only, and the admin agents list paging exactly (every agent once, in order, the
 * cursors checked) on all three engines: the memory store (the app in process), the file store and
 * PostgreSQL (real servers).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asciiLower } from '../../src/store/contract/paging.ts';
import { testApp } from '../support/app.ts';
import { sampleCard } from '../support/endpoints.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { startServer, type RunningServer } from '../support/server.ts';

const ADMIN = 'test-admin-token-0123456789';

/** Where requests go: a real server's origin, or the app in this process. */
interface Target {
  request(path: string, init?: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

const overHttp = (server: RunningServer, cleanup: () => Promise<void> = async () => {}): Target => ({
  request: (path, init = {}) => fetch(`${server.url}${path}`, { method: init.method ?? 'GET', headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) }),
  close: async () => {
    await server.stop();
    await cleanup();
  },
});

const inProcess = (): Target => {
  const { app, clock } = testApp();
  return {
    // The fake clock stands still unless moved: each request a second later, as a real one would be.
    request: async (path, init = {}) => {
      clock.advance(1000);
      return app.request(path, { method: init.method ?? 'GET', headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
    },
    close: async () => {},
  };
};

const engines: Record<string, () => Promise<Target>> = {
  memory: async () => inProcess(),
  file: async () => overHttp(await startServer({ env: { CARDGATE_LIMIT_PRO: '100000' } })),
  postgres: async () => {
    const db: TestDatabase = await createTestDatabase();
    return overHttp(await startServer({ env: { CARDGATE_LIMIT_PRO: '100000', CARDGATE_DATABASE_URL: db.url } }), () => db.drop());
  },
};

const send = async (target: Target, method: string, path: string, token: string, body?: unknown) => {
  const res = await target.request(path, { method, headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' }, body });
  return { status: res.status, body: (await res.json()) as any };
};

/** An account with a key; its secret. */
const accountWithKey = async (target: Target, name: string): Promise<{ id: string; key: string }> => {
  const { body } = await send(target, 'POST', '/admin/api/accounts', ADMIN, { name, plan: 'pro' });
  const created = await send(target, 'POST', `/admin/api/accounts/${body.account.id}/keys`, ADMIN, { name: 'ci' });
  assert.equal(created.status, 201);
  return { id: body.account.id, key: created.body.secret };
};

const validate = async (target: Target, key: string, agent: string, card: unknown, branch?: string) => {
  const res = await send(target, 'POST', '/v1/validate', key, { agent_card: card, options: { agent, include_score: true, ...(branch ? { branch } : {}) } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { report_id: string; valid: boolean; score: number; agent: { id: string; name: string } };
};

for (const [engine, start] of Object.entries(engines)) {
  describe(`agent history on the ${engine} engine`, () => {
    let target: Target;
    let own: { id: string; key: string };
    let other: { id: string; key: string };
    before(async () => {
      target = await start();
      own = await accountWithKey(target, 'Acme');
      other = await accountWithKey(target, 'Other');
    });
    after(async () => {
      await target?.close();
    });

    it('two keyed validations: the history shows both, newest first, with the diff link between them; another account\'s key gets 404', async () => {
      const first = await validate(target, own.key, 'acme/billing', sampleCard());
      const second = await validate(target, own.key, 'acme/billing', { ...sampleCard(), url: 'not a url' });
      assert.equal(second.agent.id, first.agent.id);
      const { status, body } = await send(target, 'GET', `/agents/${first.agent.id}`, own.key);
      assert.equal(status, 200);
      assert.deepEqual(body.reports.map((r: { id: string }) => r.id), [second.report_id, first.report_id]);
      assert.deepEqual(body.reports.map((r: { valid: boolean }) => r.valid), [second.valid, first.valid]);
      assert.equal(body.reports[0].score, second.score);
      assert.ok(body.reports[0].errors > 0);
      assert.equal(body.reports[1].diff_url, null, 'the first report has nothing before it');
      const diffUrl: string = body.reports[0].diff_url;
      assert.match(diffUrl, new RegExp(`/reports/${first.report_id}/diff/${second.report_id}$`));
      const diff = await target.request(new URL(diffUrl).pathname, { headers: { accept: 'application/json' } });
      assert.equal(diff.status, 200);
      assert.deepEqual((await diff.json()).verdict, { before: first.valid, after: second.valid, changed: first.valid !== second.valid });

      const newest = await send(target, 'GET', `/agents/${first.agent.id}?limit=1`, own.key);
      assert.deepEqual(newest.body.reports.map((r: { id: string; previous_id: string }) => [r.id, r.previous_id]), [[second.report_id, first.report_id]]);
      const older = await send(target, 'GET', `/agents/${first.agent.id}?limit=1&cursor=${newest.body.next_cursor}`, own.key);
      assert.equal(older.status, 200);
      assert.deepEqual(older.body.reports.map((r: { id: string }) => r.id), [first.report_id]);
      assert.equal(older.body.next_cursor, null);

      const foreign = await send(target, 'GET', `/agents/${first.agent.id}`, other.key);
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, (await send(target, 'GET', '/agents/agt_missing', own.key)).body);

      const badge = await target.request(new URL(body.badge_url).pathname + new URL(body.badge_url).search);
      assert.equal(badge.status, 200);
      assert.match(await badge.text(), second.valid ? /valid/ : /invalid/);
      const wrong = await target.request(`/agents/${first.agent.id}/badge.svg?token=${'x'.repeat(43)}`);
      assert.equal(wrong.status, 404);
      assert.match(await wrong.text(), /agent not found/);
    });

    it('the admin list pages exactly: every agent once, in order, under each sort, and one account\'s alone', async () => {
      for (let i = 0; i < 6; i++) await validate(target, own.key, `acme/Agent-${i}`, sampleCard());
      await validate(target, other.key, 'other/agent', sampleCard());
      await validate(target, own.key, 'acme/Agent-3', sampleCard());
      const all = (await send(target, 'GET', '/admin/api/agents?limit=500', ADMIN)).body.agents as Array<{ id: string; name: string; account_id: string; counts: { reports: number }; last_seen: string }>;
      assert.equal(all.length, 8);
      const pages = async (query: string): Promise<string[]> => {
        const ids: string[] = [];
        let cursor: string | null = null;
        for (let n = 0; n < 20; n++) {
          const page = await send(target, 'GET', `/admin/api/agents?limit=3&${query}${cursor ? `&cursor=${cursor}` : ''}`, ADMIN);
          assert.equal(page.status, 200, JSON.stringify(page.body));
          assert.ok(page.body.agents.length <= 3);
          ids.push(...page.body.agents.map((a: { id: string }) => a.id));
          cursor = page.body.next_cursor;
          if (!cursor) return ids;
        }
        throw new Error('the pages did not end');
      };
      const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      const ordered = (key: (a: (typeof all)[number]) => string | number, descending = false) =>
        [...all].sort((a, b) => {
          const [x, y] = [key(a), key(b)];
          return (x < y ? -1 : x > y ? 1 : byId(a, b)) * (descending ? -1 : 1);
        }).map((a) => a.id);
      assert.deepEqual(await pages('sort=name'), ordered((a) => asciiLower(a.name)));
      assert.deepEqual(await pages('sort=-reports'), ordered((a) => a.counts.reports, true));
      assert.deepEqual(await pages('sort=-last_seen'), ordered((a) => a.last_seen, true));
      assert.deepEqual(new Set(await pages(`account_id=${other.id}`)), new Set(all.filter((a) => a.account_id === other.id).map((a) => a.id)));
      assert.deepEqual((await pages('q=AGENT-&sort=name')).length, 6);

      const first = await send(target, 'GET', '/admin/api/agents?limit=3&sort=name', ADMIN);
      for (const query of [`sort=reports&cursor=${first.body.next_cursor}`, 'cursor=nonsense', 'sort=size', 'limit=0']) {
        const refused = await send(target, 'GET', `/admin/api/agents?${query}`, ADMIN);
        assert.equal(refused.status, 400, query);
        assert.equal(refused.body.code, 'INVALID_REQUEST');
      }
      assert.equal((await send(target, 'GET', '/admin/api/agents', own.key)).status, 401, 'an API key is not the admin token');
    });

    it('the admin list filters by the badge\'s verdict (the default branch\'s latest), with the account filter; another value is a 400', async () => {
      const team = await accountWithKey(target, 'Verdicts');
      const invalid = { ...sampleCard(), url: 'not a url' };
      await validate(target, team.key, 'v/green', sampleCard(), 'main');
      const pr = await validate(target, team.key, 'v/red-pull-request', sampleCard(), 'main');
      await validate(target, team.key, 'v/red-pull-request', invalid, 'feature-x');
      await validate(target, team.key, 'v/red', invalid, 'main');
      const names = async (query: string): Promise<string[]> => {
        const page = await send(target, 'GET', `/admin/api/agents?account_id=${team.id}&sort=name&${query}`, ADMIN);
        assert.equal(page.status, 200, JSON.stringify(page.body));
        return page.body.agents.map((a: { name: string }) => a.name);
      };
      assert.deepEqual(await names('verdict=pass'), ['v/green', 'v/red-pull-request'], 'a failing pull request leaves its agent passing');
      assert.deepEqual(await names('verdict=fail'), ['v/red']);
      assert.deepEqual(await names('verdict=fail&limit=1'), ['v/red']);
      const changed = await send(target, 'PATCH', `/admin/api/agents/${pr.agent.id}`, ADMIN, { default_branch: 'feature-x' });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(await names('verdict=fail'), ['v/red', 'v/red-pull-request'], 'its badge now shows feature-x');
      for (const query of ['verdict=green', 'verdict=', 'verdict=PASS']) {
        const refused = await send(target, 'GET', `/admin/api/agents?${query}`, ADMIN);
        assert.equal(refused.status, 400, query);
        assert.equal(refused.body.code, 'INVALID_REQUEST');
        assert.match(JSON.stringify(refused.body), /verdict/, query);
      }
    });
  });
}
