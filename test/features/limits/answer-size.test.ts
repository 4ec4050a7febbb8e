/**
 * Black-box: bounded answers. A small card can hold a great many faults (90,000 skills of
 * `{"id":"a"}` in 990 KB); every answer keeps at most `validation.maxFindings` findings of each
 * list per card and says how many it left out, so it stays within a small multiple of the
 * request, and the event loop keeps answering while such work runs in the validation workers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type RunningServer } from '../../support/server.ts';
import { tempDirFactory } from '../../support/temp.ts';
import { prepareDataDir } from '../../support/seed.ts';

const tempDir = tempDirFactory('cardgate-answer-size-');

/** A card of `n` skills that are only an id: three errors, a warning and two suggestions each. */
const faultyCard = (n: number) => `{"name":"x","protocolVersion":"0.3.0","skills":[${Array(n).fill('{"id":"a"}').join(',')}]}`;

/**
 * A card whose findings would copy request bytes: 900 defined schemes with names of 1 KB and one
 * requirement naming 200 undefined ones, each of whose findings once listed every defined name
 * (918 KB answered 353 MB).
 */
const manyNamesCard = () => {
  const securitySchemes: Record<string, unknown> = {};
  for (let i = 0; i < 900; i++) securitySchemes[`s${i}_${'a'.repeat(1000)}`] = { type: 'http', scheme: 'bearer' };
  const requirement: Record<string, unknown[]> = {};
  for (let i = 0; i < 200; i++) requirement[`u${i}`] = [];
  return JSON.stringify({ name: 'x', protocolVersion: '0.3.0', securitySchemes, security: [requirement] });
};

/** What the answer may weigh: 4x the request, plus room for the capped lists of one card. */
const bound = (requestBytes: number) => 4 * requestBytes + 256 * 1024;

describe('bounded answers (real server, validation workers on)', () => {
  let server: RunningServer;
  let auth: Record<string, string>;
  before(async () => {
    const dataDir = tempDir();
    auth = { authorization: `Bearer ${await prepareDataDir(dataDir, { plan: 'pro' })}` };
    server = await startServer({ dataDir, config: { validation: { workers: 1 } } });
  });
  after(() => server.stop());

  const post = (path: string, body: string) =>
    fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body });

  it('a 990 KB card of 90,000 faulty skills: each endpoint answers a few hundred findings and counts the rest', async () => {
    const card = faultyCard(90_000);
    const sha = 'ab'.repeat(20);
    for (const [path, body, findingsOf] of [
      ['/v1/validate', `{"agent_card":${card},"options":{"include_suggestions":true}}`, (r: any) => r],
      ['/v1/webhook', `{"agent_card":${card}}`, (r: any) => r],
      ['/v1/webhook/github', `{"agent_card":${card},"github":{"repo":"octo/agent","sha":"${sha}"}}`, (r: any) => r.validation],
    ] as const) {
      assert.ok(body.length > 980_000 && body.length < 1024 * 1024, `${path}: ${body.length} bytes`);
      const res = await post(path, body);
      assert.equal(res.status, 200, path);
      const text = await res.text();
      assert.ok(text.length <= bound(body.length), `${path}: ${text.length} bytes answer a ${body.length} bytes request`);
      const findings = findingsOf(JSON.parse(text));
      assert.equal(findings.errors.length, 200, path);
      assert.equal(findings.warnings.length, 200, path);
      assert.ok(findings.truncated.errors > 269_000 && findings.truncated.warnings > 89_000, `${path}: ${JSON.stringify(findings.truncated)}`);
    }
  });

  it('a 918 KB card whose findings would each list every defined scheme: answers and its report page stay within the bound', async () => {
    const card = manyNamesCard();
    for (const [path, body] of [
      ['/v1/validate', `{"agent_card":${card},"options":{"include_score":true,"include_suggestions":true}}`],
      ['/v1/webhook', `{"agent_card":${card}}`],
    ] as const) {
      assert.ok(body.length > 900_000 && body.length < 1024 * 1024, `${path}: ${body.length} bytes`);
      const res = await post(path, body);
      assert.equal(res.status, 200, path);
      const text = await res.text();
      assert.ok(text.length <= bound(body.length), `${path}: ${text.length} bytes answer a ${body.length} bytes request`);
      const result = JSON.parse(text);
      assert.equal(result.warnings.length, 200, path);
      const undefinedSchemes = result.warnings.filter((w: { rule: string }) => w.rule === 'security.undefined-scheme');
      assert.ok(undefinedSchemes.length > 190 && undefinedSchemes.every((w: { message: string }) => w.message.length <= 512 && w.message.includes('and 897 more')), path);
      for (const accept of ['text/html', 'application/json']) {
        const page = await fetch(`${server.url}${new URL(result.report_url).pathname}`, { headers: { accept, ...auth } });
        assert.equal(page.status, 200, `${path} report as ${accept}`);
        const pageText = await page.text();
        assert.ok(pageText.length <= bound(body.length), `${path} report as ${accept}: ${pageText.length} bytes for a ${body.length} bytes request`);
      }
    }
  });

  it('a 9.9 MB batch of such cards answers within the bound, and /healthz answers while it runs', async () => {
    const card = faultyCard(8_990);
    const body = `{"cards":[${Array.from({ length: 100 }, (_, i) => `{"id":"c${i}","agent_card":${card}}`).join(',')}]}`;
    assert.ok(body.length > 9_800_000 && body.length < 10 * 1024 * 1024, `${body.length} bytes`);
    let done = false;
    const batch = post('/v1/validate/batch', body).then(async (res) => ({ status: res.status, text: await res.text() })).finally(() => (done = true));
    let healthyWhileRunning = 0;
    while (!done) {
      const health = await fetch(`${server.url}/healthz`);
      assert.equal(health.status, 200);
      await health.text();
      if (!done) healthyWhileRunning++;
      await new Promise((r) => setTimeout(r, 100));
    }
    const { status, text } = await batch;
    assert.equal(status, 200);
    assert.ok(text.length <= bound(body.length), `${text.length} bytes answer a ${body.length} bytes request`);
    const result = JSON.parse(text);
    assert.equal(result.total, 100);
    for (const r of result.results) {
      assert.equal(r.errors.length, 200);
      assert.ok(r.truncated.errors > 26_000, JSON.stringify(r.truncated));
    }
    assert.ok(healthyWhileRunning > 0, '/healthz answered while the batch was being validated');
  });
});
