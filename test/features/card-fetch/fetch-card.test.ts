/** fetchCard against web servers on 127.0.0.1 only: well-known fallback, redirects, limits, the address policy. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createAddressPolicy } from '../../../src/lib/address-policy.ts';
import { cardUrls, fetchCard, type CardFetchOptions } from '../../../src/features/card-fetch/fetch-card.ts';
import { cardFetchUse } from '../../../src/features/validation/card-by-url.ts';
import { startCardHost } from '../../support/card-host.ts';

const card = '{\n  "name": "Local agent",\n  "protocolVersion": "0.3.0"\n}\n';
const options = (over: Partial<CardFetchOptions> = {}): CardFetchOptions => ({
  policy: createAddressPolicy(['loopback'], cardFetchUse),
  timeoutMs: 2000,
  maxBytes: 1024,
  userAgent: 'cardgate-test',
  redirectsToOtherHosts: false,
  ...over,
});

describe('fetchCard', async () => {
  const wellKnown = await startCardHost({
    '/.well-known/agent-card.json': { headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' }, body: card },
    '/cards/exact.json': { body: card },
    '/moved': { status: 301, headers: { location: '/cards/exact.json' } },
    '/elsewhere': (base) => ({ status: 302, headers: { location: base.replace('127.0.0.1', 'localhost') + '/cards/exact.json' } }),
    '/big': { body: `{"name": "${'x'.repeat(2000)}"}` },
    '/big-chunked': { headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: `{"name": "${'x'.repeat(2000)}"}` },
    '/silent': { silent: true },
    '/broken': { status: 500 },
  });
  const legacy = await startCardHost({ '/.well-known/agent.json': { headers: { 'content-type': 'text/plain' }, body: card } });
  const empty = await startCardHost({});
  after(() => Promise.all([wellKnown.close(), legacy.close(), empty.close()]));

  it('a bare origin means its /.well-known/agent-card.json; the source says what the server answered', async () => {
    const fetched = await fetchCard(wellKnown.url, options());
    assert.ok('text' in fetched);
    assert.equal(fetched.text, card);
    assert.deepEqual(fetched.source, {
      agent_url: wellKnown.url,
      url: `${wellKnown.url}/.well-known/agent-card.json`,
      status: 200,
      content_type: 'application/json',
      bytes: Buffer.byteLength(card),
      access_control_allow_origin: '*',
    });
  });

  it('falls back to /.well-known/agent.json when the first answers 404', async () => {
    const fetched = await fetchCard(`${legacy.url}/`, options());
    assert.ok('text' in fetched, JSON.stringify(fetched));
    assert.equal(fetched.source.url, `${legacy.url}/.well-known/agent.json`);
    assert.equal(fetched.source.content_type, 'text/plain');
    assert.equal(fetched.source.access_control_allow_origin, null);
    assert.deepEqual(legacy.paths(), ['/.well-known/agent-card.json', '/.well-known/agent.json']);
  });

  it('says what each URL answered when neither has a card', async () => {
    const fetched = await fetchCard(empty.url, options());
    assert.ok('problem' in fetched);
    assert.equal(
      fetched.problem,
      `${empty.url}/.well-known/agent-card.json answered HTTP 404; ${empty.url}/.well-known/agent.json answered HTTP 404`,
    );
    const broken = await fetchCard(`${wellKnown.url}/broken`, options());
    assert.deepEqual(broken, { problem: `${wellKnown.url}/broken answered HTTP 500` });
  });

  it('fetches any other URL as given, and follows a redirect on the same host', async () => {
    const exact = await fetchCard(`${wellKnown.url}/cards/exact.json`, options());
    assert.ok('text' in exact && exact.source.url === `${wellKnown.url}/cards/exact.json`);
    const moved = await fetchCard(`${wellKnown.url}/moved`, options());
    assert.ok('text' in moved && moved.source.url === `${wellKnown.url}/cards/exact.json` && moved.source.agent_url === `${wellKnown.url}/moved`);
    assert.ok(cardUrls(new URL('https://agent.example/?x=1')).length === 1, 'a query makes it an exact URL');
  });

  it('refuses a redirect to another host, unless told to follow it (the CLI)', async () => {
    const refused = await fetchCard(`${wellKnown.url}/elsewhere`, options());
    assert.ok('problem' in refused);
    assert.match(refused.problem, /redirected to http:\/\/localhost:\d+\/cards\/exact\.json, another host: not followed/);
    const followed = await fetchCard(`${wellKnown.url}/elsewhere`, options({ redirectsToOtherHosts: true, policy: createAddressPolicy(['*'], cardFetchUse) }));
    assert.ok('text' in followed, JSON.stringify(followed));
  });

  it('stops at the size limit, declared or not', async () => {
    for (const path of ['/big', '/big-chunked']) {
      const fetched = await fetchCard(`${wellKnown.url}${path}`, options());
      assert.deepEqual(fetched, { problem: `${wellKnown.url}${path} sent more than 1024 bytes, the size limit for a card` }, path);
    }
  });

  it('stops at the time limit', async () => {
    const started = Date.now();
    const fetched = await fetchCard(`${wellKnown.url}/silent`, options({ timeoutMs: 200 }));
    assert.deepEqual(fetched, { problem: `${wellKnown.url}/silent: no complete answer within 200 ms` });
    assert.ok(Date.now() - started < 1500);
  });

  it('the default policy refuses 127.0.0.1, and a hostname resolving to it, before any request', async () => {
    const strict = options({ policy: createAddressPolicy([], cardFetchUse) });
    const literal = await fetchCard(wellKnown.url, strict);
    assert.ok('problem' in literal);
    assert.match(literal.problem, /^agent_url refused: address 127\.0\.0\.1 is loopback; card fetches to it are refused unless cardFetch\.allowedHosts lists "loopback"/);
    const named = await fetchCard(wellKnown.url.replace('127.0.0.1', 'localhost'), strict);
    assert.ok('problem' in named);
    assert.match(named.problem, /localhost resolves to a refused address/);
    assert.deepEqual(wellKnown.paths().filter((p) => p === '/.well-known/agent-card.json').length, 1, 'only the allowed fetch reached the server');
  });

  describe('allow lists by host and port, with two loopback servers on two ports', async () => {
    const other = await startCardHost({ '/cards/exact.json': { body: card } });
    const otherPort = new URL(other.url).port;
    const port = new URL(wellKnown.url).port;
    // A same-host redirect to the other server's port, by name and by address.
    const hop = await startCardHost({
      '/by-name': { status: 302, headers: { location: `http://localhost:${otherPort}/cards/exact.json` } },
      '/by-address': { status: 302, headers: { location: `http://127.0.0.1:${otherPort}/cards/exact.json` } },
      '/same-port': (base) => ({ status: 302, headers: { location: `${base}/cards/exact.json` } }),
      '/cards/exact.json': { body: card },
    });
    const hopPort = new URL(hop.url).port;
    after(() => Promise.all([other.close(), hop.close()]));
    const withList = (list: string[]) => options({ policy: createAddressPolicy(list, cardFetchUse) });
    const fetched = (url: string, list: string[]) => fetchCard(url, withList(list));

    it('a bare host admits its every port for a URL given directly', async () => {
      for (const url of [`http://localhost:${hopPort}/cards/exact.json`, `http://localhost:${otherPort}/cards/exact.json`]) {
        const answer = await fetched(url, ['localhost']);
        assert.ok('text' in answer, `${url}: ${JSON.stringify(answer)}`);
      }
      assert.ok(port !== otherPort);
    });

    it('a same-host redirect to another port is not followed on a bare host, "loopback" or a bare address (before: followed)', async () => {
      const reached = other.paths().length;
      for (const [path, list] of [['/by-name', ['localhost']], ['/by-address', ['loopback']], ['/by-address', ['127.0.0.1']], ['/by-name', ['localhost', 'loopback']]] as const) {
        const base = path === '/by-name' ? hop.url.replace('127.0.0.1', 'localhost') : hop.url;
        const answer = await fetched(`${base}${path}`, [...list]);
        assert.ok('problem' in answer, `${path} with ${JSON.stringify(list)}: followed`);
        assert.match(answer.problem, new RegExp(`a redirect to it is followed only when cardFetch\\.allowedHosts lists it with this port|localhost resolves to a refused address: .*with this port`), answer.problem);
      }
      assert.equal(other.paths().length, reached, 'the other port was never reached');
    });

    it('a host:port entry admits the redirect to that port, and nothing else of the host', async () => {
      const byName = await fetched(`${hop.url.replace('127.0.0.1', 'localhost')}/by-name`, ['localhost', `localhost:${otherPort}`]);
      assert.ok('text' in byName, JSON.stringify(byName));
      const byAddress = await fetched(`${hop.url}/by-address`, ['loopback', `127.0.0.1:${otherPort}`]);
      assert.ok('text' in byAddress, JSON.stringify(byAddress));
      // Only that port: the host's other ports stay refused, given directly or by a redirect.
      const onlyOther = await fetched(`http://localhost:${hopPort}/cards/exact.json`, [`localhost:${otherPort}`]);
      assert.ok('problem' in onlyOther && /resolves to a refused address/.test(onlyOther.problem), JSON.stringify(onlyOther));
      const direct = await fetched(`http://127.0.0.1:${otherPort}/cards/exact.json`, [`127.0.0.1:${otherPort}`]);
      assert.ok('text' in direct, JSON.stringify(direct));
      const [v6] = [`[::1]:${otherPort}`];
      assert.doesNotThrow(() => createAddressPolicy([v6], cardFetchUse));
    });

    it('a redirect on the same host and port is followed as before', async () => {
      const answer = await fetched(`${hop.url}/same-port`, ['loopback']);
      assert.ok('text' in answer, JSON.stringify(answer));
    });
  });
});

