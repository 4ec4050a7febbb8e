/**
 * A body's encoding, the same on every endpoint that takes one: a leading UTF-8 byte order mark
 * is dropped (the card's lines and columns do not count it), with or without a Content-Length;
 * a charset other than UTF-8 (`utf-8`, `utf8`, `us-ascii`, in any case, quoted or not) is 415
 * UNSUPPORTED_MEDIA_TYPE in the endpoint's shape. Before: `charset=utf-16` was read as UTF-8.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { postJson, testApp } from '../support/app.ts';
import { minimalCard } from '../support/cards.ts';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const setup = async () => {
  const t = testApp({ config: { limits: { daily: { anonymous: 1000 } } } });
  const admin = { authorization: `Bearer ${t.config.adminToken}` };
  const account = await (await t.app.request('/admin/api/accounts', postJson({ name: 'enc', plan: 'pro' }, admin))).json();
  const { secret } = await (await t.app.request(`/admin/api/accounts/${account.account.id}/keys`, postJson({ name: 'k' }, admin))).json();
  const card = { ...minimalCard(), url: 'http://example.com/a2a' }; // a warning at `url`
  const bodies: Record<string, unknown> = {
    '/v1/validate': { agent_card: card },
    '/v1/validate/batch': { cards: [{ id: 'a', agent_card: card }] },
    '/v1/webhook': { agent_card: card },
    '/v1/webhook/github': { agent_card: card, github: { repo: 'octo/agent', sha: 'a'.repeat(40) } },
  };
  const post = (path: string, bytes: Buffer, contentType: string, chunked = false) =>
    t.app.request(path, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${secret}`, ...(chunked ? {} : { 'content-length': String(bytes.length) }) },
      body: chunked ? new Blob([new Uint8Array(bytes)]).stream() : bytes,
      duplex: 'half',
    } as RequestInit);
  return { bodies, post, admin, t };
};

describe('a body\'s encoding, alike on every endpoint', () => {
  it('a UTF-8 byte order mark is dropped on every endpoint, framed by length or chunked; positions do not count it', async () => {
    const { bodies, post } = await setup();
    const place = (text: string) => JSON.parse(text).warnings.filter((w: { path: string }) => w.path === 'url').map((w: { line: number; column: number }) => [w.line, w.column]);
    const without = place(await (await post('/v1/validate', Buffer.from(JSON.stringify(bodies['/v1/validate'], null, 2)), 'application/json')).text());
    assert.ok(without.length > 0, "a finding at url");
    for (const [path, body] of Object.entries(bodies)) {
      for (const chunked of [false, true]) {
        const res = await post(path, Buffer.concat([BOM, Buffer.from(JSON.stringify(body, null, 2))]), 'application/json', chunked);
        const text = await res.text();
        assert.equal(res.status, 200, `${path}${chunked ? ' chunked' : ''}: ${text.slice(0, 200)}`);
        if (path === '/v1/validate') assert.deepEqual(place(text), without, 'the BOM moves no position');
      }
    }
  });

  it('charset utf-8, utf8, us-ascii in any case (quoted or not) are accepted', async () => {
    const { bodies, post } = await setup();
    for (const charset of ['utf-8', 'UTF-8', 'utf8', 'Utf8', '"utf-8"', 'us-ascii', 'US-ASCII']) {
      for (const [path, body] of Object.entries(bodies)) {
        const res = await post(path, Buffer.from(JSON.stringify(body)), `application/json; charset=${charset}`);
        assert.equal(res.status, 200, `${path}, charset=${charset}: ${(await res.text()).slice(0, 200)}`);
      }
    }
  });

  it('any other charset is 415 UNSUPPORTED_MEDIA_TYPE in the endpoint\'s shape, admin API included', async () => {
    const { bodies, post, t, admin } = await setup();
    for (const charset of ['utf-16', 'UTF-16LE', 'iso-8859-1', 'latin1', '"windows-1252"']) {
      const contentType = `application/json; charset=${charset}`;
      for (const [path, body] of Object.entries(bodies)) {
        const res = await post(path, Buffer.from(JSON.stringify(body)), contentType);
        const answer = await res.json();
        assert.equal(res.status, 415, `${path}, charset=${charset}`);
        if (path === '/v1/validate') {
          assert.equal(answer.valid, false);
          assert.equal(answer.errors[0].path, 'body');
          assert.match(answer.errors[0].message, /charset .* is not supported/);
        } else {
          assert.equal(answer.code ?? answer.error?.code, 'UNSUPPORTED_MEDIA_TYPE', `${path}: ${JSON.stringify(answer)}`);
        }
      }
      const res = await t.app.request('/admin/api/accounts', { method: 'POST', headers: { ...admin, 'content-type': contentType }, body: JSON.stringify({ name: 'x', plan: 'free' }) });
      assert.equal(res.status, 415);
    }
  });
});
