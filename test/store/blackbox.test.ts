/**
 * Black-box: the real server with records that cannot be written (nested deeper than the
 * runtime can encode). Whatever the input checks in front of the store let through, such a
 * record fails only its own request: later writes are recorded, SIGTERM exits 0, and the next
 * start loads the store.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { startServer } from '../support/server.ts';
import { validCard } from '../features/webhooks/fixtures.ts';
import { startReceiver } from '../support/receiver.ts';

/** A request body whose card holds an array nested `depth` deep, as text (the client cannot encode it either). */
const deepBody = (depth: number, extra = '') => `{"agent_card":{"name":"deep","nested":${'['.repeat(depth)}${']'.repeat(depth)}}${extra}}`;
const postText = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

it('a request whose record cannot be written fails alone: later writes are recorded, SIGTERM exits 0, the next start loads', async () => {
  const receiver = await startReceiver();
  const config = { webhooks: { allowedHosts: ['loopback'] }, limits: { daily: { anonymous: -1 } } };
  let server = await startServer({ config });
  after(async () => {
    await server.stop();
    await receiver.close();
  });
  const recorded = async () => {
    const res = await postText(`${server.url}/v1/validate`, JSON.stringify({ agent_card: validCard }));
    assert.equal(res.status, 200);
    return (await res.json()).recorded;
  };
  const finished = async (id: string) => {
    for (;;) {
      const res = await fetch(`${server.url}/v1/status/${id}`);
      assert.equal(res.status, 200, `status of ${id}`);
      const body = await res.json();
      if (body.status === 'completed' || body.status === 'failed') return body;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const accepted: string[] = [];
  for (const depth of [2_000, 3_000, 5_000, 20_000]) {
    const single = await postText(`${server.url}/v1/validate`, deepBody(depth));
    assert.ok(single.status < 500, `POST /v1/validate at depth ${depth}: ${single.status}`);
    assert.equal(await recorded(), true, `a write after /v1/validate at depth ${depth}`);

    const job = await postText(`${server.url}/v1/webhook`, deepBody(depth, `,"callback_url":"${receiver.url}"`));
    assert.ok([202, 400].includes(job.status), `async POST /v1/webhook at depth ${depth}: ${job.status}`);
    if (job.status === 202) {
      const { validation_id } = await job.json();
      accepted.push(validation_id);
      await finished(validation_id);
    } else await job.arrayBuffer();
    assert.equal(await recorded(), true, `a write after an async webhook at depth ${depth}`);

    for (const path of ['/v1/webhook', '/v1/webhook/github']) {
      const extra = path.endsWith('github') ? `,"github":{"repo":"octo/agent","sha":"${'a'.repeat(40)}"}` : '';
      await (await postText(`${server.url}${path}`, deepBody(depth, extra))).arrayBuffer();
      assert.equal(await recorded(), true, `a write after ${path} at depth ${depth}`);
    }
  }

  assert.equal(await server.stop(), 0, 'SIGTERM exits 0');
  server = await startServer({ config, dataDir: server.dataDir });
  assert.equal(await recorded(), true);
  for (const id of accepted) await finished(id);

  // Everything the server wrote is private to its user: directories 0700, files 0600.
  const modes = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      modes.add(`${entry.isDirectory() ? 'dir' : 'file'} ${(fs.statSync(file).mode & 0o777).toString(8)}`);
      if (entry.isDirectory()) walk(file);
    }
  };
  modes.add(`dir ${(fs.statSync(server.dataDir).mode & 0o777).toString(8)}`);
  walk(server.dataDir);
  assert.deepEqual([...modes].sort(), ['dir 700', 'file 600']);
});
