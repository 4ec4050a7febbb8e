/**
 * Black-box: the JSON nesting limit (`http.maxJsonDepth`) at every body entry of the real server.
 * A body nested past it is refused with 400 in the endpoint's documented shape, before anything is
 * charged or stored; a body at the limit is accepted, and whatever was accepted is stored, read
 * back (report JSON and page, job status) and survives a restart, also at the largest setting.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { minimalCard } from '../../support/cards.ts';
import { startServer, type RunningServer } from '../../support/server.ts';
import { tempDirFactory } from '../../support/temp.ts';
import { prepareDataDir } from '../../support/seed.ts';

const tempDir = tempDirFactory('cardgate-nesting-');
const admin = { authorization: 'Bearer test-admin-token-0123456789' };
const sha = 'c0ffee'.repeat(6) + 'c0ff';

/** A card whose text nests `depth` levels: the card object, then an array of arrays. */
const cardNested = (depth: number): string =>
  `{"name":"Deep","protocolVersion":"0.3.0","deep":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

/** The bodies of every entry, with a card nested `depth` levels; `wrap` is how many levels the body adds around the card. */
const bodies = (depth: (wrap: number) => number) => ({
  validate: `{"agent_card":${cardNested(depth(1))}}`,
  batch: `{"cards":[{"id":"a","agent_card":${cardNested(depth(3))}}]}`,
  webhook: `{"agent_card":${cardNested(depth(1))}}`,
  job: `{"agent_card":${cardNested(depth(1))},"callback_url":"http://127.0.0.1:9/hook"}`,
  github: `{"agent_card":${cardNested(depth(1))},"github":{"repo":"octo/agent","sha":"${sha}"}}`,
});

const post = (server: RunningServer, path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const reportCount = async (server: RunningServer) =>
  ((await (await fetch(`${server.url}/admin/api/reports?limit=500`, { headers: admin })).json()) as { reports: unknown[] }).reports.length;

/** The report of `id` answers as JSON and as a page. */
const readsBack = async (server: RunningServer, id: string) => {
  const json = await fetch(`${server.url}/reports/${id}`, { headers: { accept: 'application/json' } });
  assert.equal(json.status, 200, `report ${id} as JSON`);
  assert.equal(((await json.json()) as { card: { name: string } }).card !== undefined, true);
  const page = await fetch(`${server.url}/reports/${id}`);
  assert.equal(page.status, 200, `report ${id} as a page`);
  await page.text();
};

describe('JSON nesting limit at every body entry (real server)', () => {
  it('refuses bodies past the limit with 400 in each documented shape; nothing charged or stored; the server restarts', async () => {
    const dataDir = tempDir();
    const key = await prepareDataDir(dataDir, { plan: 'pro' });
    let server = await startServer({ dataDir, config: { webhooks: { allowedHosts: ['loopback'] } } });
    after(() => server.stop());
    const pro = { authorization: `Bearer ${key}` };

    // The case: a 10 KB anonymous request holding a 5,000-deep array.
    const validate = await post(server, '/v1/validate', `{"agent_card":${cardNested(5000)}}`);
    assert.equal(validate.status, 400);
    assert.equal(validate.headers.get('x-ratelimit-remaining'), '5', 'not charged');
    assert.deepEqual(await validate.json(), {
      valid: false,
      errors: [{ path: 'body', message: 'request body nests arrays and objects more than 64 levels deep' }],
    });

    const flat = { error: 'request body nests arrays and objects more than 64 levels deep', code: 'INVALID_REQUEST' };
    for (const depth of [65, 2000, 4750]) {
      const deep = bodies((wrap) => depth - wrap + 1);
      for (const [path, body, headers] of [
        ['/v1/validate/batch', deep.batch, pro],
        ['/v1/webhook', deep.webhook, {}],
        ['/v1/webhook', deep.job, {}],
        ['/v1/webhook/github', deep.github, {}],
      ] as const) {
        const res = await post(server, path, body, headers);
        assert.equal(res.status, 400, `${path} at depth ${depth}`);
        assert.deepEqual(await res.json(), flat, `${path} at depth ${depth}`);
      }
    }
    const metadata = await post(server, '/v1/webhook', `{"agent_card":${JSON.stringify(minimalCard())},"metadata":{"m":${'['.repeat(3000)}${']'.repeat(3000)}}}`);
    assert.equal(metadata.status, 400);
    assert.deepEqual(await metadata.json(), flat);
    for (const [method, path] of [['POST', '/admin/api/accounts'], ['PATCH', '/admin/api/accounts/acct_x'], ['POST', '/admin/api/accounts/acct_x/keys']]) {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...admin },
        body: `{"name":"a","plan":${'['.repeat(200)}${']'.repeat(200)}}`,
      });
      assert.equal(res.status, 400, `${method} ${path}`);
      assert.deepEqual(await res.json(), flat, `${method} ${path}`);
    }
    assert.equal(await reportCount(server), 0, 'nothing stored');
    const usage = (await (await fetch(`${server.url}/admin/api/usage`, { headers: admin })).json()) as { usage: unknown[] };
    assert.deepEqual(usage.usage, [], 'nothing charged');

    // At the limit: accepted, stored, read back, and still there after a restart.
    const atLimit = bodies((wrap) => 64 - wrap);
    const ok = await post(server, '/v1/validate', atLimit.validate);
    assert.equal(ok.status, 200);
    const { report_id, recorded } = (await ok.json()) as { report_id: string; recorded: boolean };
    assert.equal(recorded, true);
    await readsBack(server, report_id);
    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir });
    await readsBack(server, report_id);
  });

  it('at the largest setting (1000), every entry accepts a body at the limit, stores it, reads it back, and restarts', async () => {
    const dataDir = tempDir();
    const key = await prepareDataDir(dataDir, { plan: 'pro' });
    const config = { http: { maxJsonDepth: 1000 }, webhooks: { allowedHosts: ['loopback'] } };
    let server = await startServer({ dataDir, config });
    after(() => server.stop());
    const atLimit = bodies((wrap) => 1000 - wrap);

    const ids: string[] = [];
    const single = await post(server, '/v1/validate', atLimit.validate);
    assert.equal(single.status, 200);
    ids.push(((await single.json()) as { report_id: string }).report_id);
    const batch = await post(server, '/v1/validate/batch', atLimit.batch, { authorization: `Bearer ${key}` });
    assert.equal(batch.status, 200);
    ids.push(((await batch.json()) as { batch_id: string }).batch_id);
    const webhook = await post(server, '/v1/webhook', atLimit.webhook);
    assert.equal(webhook.status, 200);
    ids.push(((await webhook.json()) as { validation_id: string }).validation_id);
    const github = await post(server, '/v1/webhook/github', atLimit.github);
    assert.equal(github.status, 200);
    ids.push(sha);
    const job = await post(server, '/v1/webhook', atLimit.job);
    assert.equal(job.status, 202);
    const jobId = ((await job.json()) as { validation_id: string }).validation_id;
    for (let s = ''; s !== 'completed'; ) {
      const res = await fetch(`${server.url}/v1/status/${jobId}`);
      assert.equal(res.status, 200);
      s = ((await res.json()) as { status: string }).status;
      assert.notEqual(s, 'failed');
      await new Promise((r) => setTimeout(r, 50));
    }
    ids.push(jobId);
    for (const id of ids) await readsBack(server, id);

    assert.equal(await server.stop(), 0);
    server = await startServer({ dataDir, config });
    for (const id of ids) await readsBack(server, id);
    assert.equal((await fetch(`${server.url}/v1/status/${jobId}`)).status, 200);
  });
});
