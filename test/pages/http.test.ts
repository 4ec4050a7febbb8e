/**
 * The public pages over plain HTTP: content negotiation (HTML for browsers, JSON for API
 * clients), the 404s, what the report page says (merged suggestions, line anchors, score parts,
 * Markdown, link-preview tags), the rule pages, and the badge SVG.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ruleCatalogue } from '../../src/engine/index.ts';
import { renderBadge, textWidth } from '../../src/pages/badge.ts';
import { pageScript } from '../../src/pages/script.ts';
import { version } from '../../src/lib/version.ts';
import { postJson, testApp } from '../support/app.ts';
import { minimalCard } from '../support/cards.ts';
import { tempDirFactory } from '../support/temp.ts';
import { clean03 } from '../engine/fixtures.ts';
import { contrast } from './contrast.ts';

const tempDir = tempDirFactory('cardgate-pages-');
const html = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const json = { accept: 'application/json' };

/** A 0.3.0 card that also declares a 1.0 interface lacking its protocolVersion, with three unknown fields and a plain-http URL. */
const dualCard = {
  ...minimalCard('Dual <Agent>'),
  url: 'http://agent.acme.net/a2a',
  supportedInterfaces: [{ url: 'https://agent.acme.net/a2a', protocolBinding: 'JSONRPC' }],
  owner: 'team-a',
  team: 'b',
  colour: 'c',
};

const setup = () => {
  const t = testApp();
  const validate = async (card: unknown) =>
    // The card's own text in the body, pretty-printed as a card file is: the page shows that text.
    (await t.app.request('/v1/validate', postJson(`{"options": {"include_score": true, "include_suggestions": true}, "agent_card": ${JSON.stringify(card, null, 2)}}`))).json();
  return { ...t, validate };
};

const page = async (t: ReturnType<typeof setup>, path: string, headers: Record<string, string> = html) => {
  const res = await t.app.request(path, { headers });
  return { res, text: await res.text() };
};

describe('content negotiation and 404s', () => {
  it('GET / is the landing page for browsers and a JSON description for API clients', async () => {
    const t = setup();
    const { res, text } = await page(t, '/');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    assert.equal(res.headers.get('vary'), 'Accept');
    assert.ok(text.includes(`Version ${version}`));
    for (const path of ['/docs', '/rules', '/dashboard', '/healthz', '/openapi.json']) assert.ok(text.includes(`href="${path}"`), path);
    assert.ok(text.includes('<form data-validate data-max-bytes="') && text.includes('<textarea id="card"') && text.includes('<input id="agent-url"'));

    const res2 = await t.app.request('/', { headers: json });
    assert.match(res2.headers.get('content-type')!, /^application\/json/);
    const body = await res2.json();
    assert.equal(body.service, 'cardgate');
    assert.equal(body.version, version);
    assert.deepEqual(body.links, {
      docs: 'http://cardgate.test/docs',
      openapi: 'http://cardgate.test/openapi.json',
      rules: 'http://cardgate.test/rules',
      dashboard: 'http://cardgate.test/dashboard',
      health: 'http://cardgate.test/healthz',
    });
  });

  it('allows exactly the page\'s own inline script by its hash, and nothing from another host', async () => {
    const t = setup();
    const { res, text } = await page(t, '/');
    const csp = res.headers.get('content-security-policy')!;
    const scripts = [...text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    assert.deepEqual(scripts, [pageScript]);
    const hash = createHash('sha256').update(pageScript).digest('base64');
    assert.ok(csp.includes(`script-src 'sha256-${hash}'`), csp);
    assert.ok(csp.startsWith("default-src 'none'"));
    assert.ok(csp.includes("connect-src 'self'") && csp.includes("frame-ancestors 'none'"));
  });

  it('an unknown report or rule is a page for browsers and the JSON 404 for API clients', async () => {
    const t = setup();
    for (const path of ['/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA', '/rules/no.such-rule']) {
      const browser = await page(t, path);
      assert.equal(browser.res.status, 404, path);
      assert.match(browser.res.headers.get('content-type')!, /^text\/html/);
      assert.match(browser.text, /<h1>(Report|Rule) not found<\/h1>/);
      for (const headers of [json, {}, { accept: '*/*' }]) {
        const res = await t.app.request(path, { headers });
        assert.equal(res.status, 404);
        assert.equal((await res.json()).error.code, 'NOT_FOUND', `${path} ${JSON.stringify(headers)}`);
      }
    }
  });

  it('any other unknown address is a page for browsers too, and the JSON 404 for API clients', async () => {
    const t = setup();
    for (const path of ['/report/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA', '/rule', '/v1/nothing']) {
      const browser = await page(t, path);
      assert.equal(browser.res.status, 404, path);
      assert.match(browser.res.headers.get('content-type')!, /^text\/html/, path);
      assert.match(browser.text, /<h1>Page not found<\/h1>/);
      assert.ok(browser.text.includes(`cardgate has no page at ${path}.`));
      for (const headers of [json, {}, { accept: '*/*' }]) {
        const res = await t.app.request(path, { headers });
        assert.equal(res.status, 404);
        assert.equal((await res.json()).error.code, 'NOT_FOUND', `${path} ${JSON.stringify(headers)}`);
      }
    }
    // A path served under another method stays a 405, for browsers too.
    const wrongMethod = await t.app.request('/v1/validate', { headers: html });
    assert.equal(wrongMethod.status, 405);
  });

  it('GET /favicon.ico, which browsers ask for on every page, is the site\'s SVG mark with the pages\' headers; the API reference and the dashboard name it', async () => {
    const t = setup();
    const icon = await t.app.request('/favicon.ico');
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('content-type'), 'image/svg+xml');
    assert.match(icon.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(icon.headers.get('x-content-type-options'), 'nosniff');
    assert.match(icon.headers.get('cache-control') ?? '', /max-age=\d+/);
    assert.match(await icon.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 32 32">/);
    for (const path of ['/docs', '/dashboard']) {
      const { text } = await page(t, path);
      assert.ok(text.includes('<link rel="icon" href="/favicon.ico" type="image/svg+xml">'), path);
    }
  });

  it('GET /v1/rules stays the JSON catalogue', async () => {
    const t = setup();
    const body = await (await t.app.request('/v1/rules')).json();
    assert.deepEqual(Object.keys(body), ['versions', 'version_selection', 'rules']);
    assert.deepEqual(Object.keys(body.rules[0]).sort(), ['description', 'fix', 'id', 'must', 'severity', 'source', 'spec', 'versions', 'weight']);
  });
});

describe('the report page', () => {
  it('the result and the report JSON carry the compatibility verdict, and the page says it', async () => {
    const t = setup();
    const result = await t.validate(dualCard);
    assert.deepEqual(result.compatibility, { '1.0': { valid: false, errors: 1, warnings: result.compatibility['1.0'].warnings } });
    const path = new URL(result.report_url).pathname;
    const report = await (await t.app.request(path, { headers: json })).json();
    assert.deepEqual(report.result.compatibility, result.compatibility);
    assert.equal(report.result.version_source, 'declared');
    const { text } = await page(t, path);
    assert.ok(text.includes('valid for 0.3.0 clients; invalid for 1.0 clients (1 error,'), 'compatibility callout');
    assert.ok(text.includes('<dd>A2A 0.3.0 rules, as the card declares</dd>'));
  });

  it('merges suggestions into their findings: a shared fix is shown once', async () => {
    const t = setup();
    const result = await t.validate(dualCard);
    const { text } = await page(t, new URL(result.report_url).pathname);
    const fix = ruleCatalogue.find((r) => r.id === 'field.unknown')!.fix;
    const outsideMarkdown = text.replace(/<pre id="markdown">[\s\S]*?<\/pre>/, '');
    assert.equal(outsideMarkdown.split(fix).length - 1, 1, 'the fix for three unknown fields appears once');
    assert.ok(text.includes('<span class="count">3 findings</span>'));
    // Suggestions that fix no finding (missing recommended fields) are listed once, under their own heading.
    assert.ok(text.includes('More suggestions'));
    assert.equal(text.split('<code>provider</code>: add').length - 1, 1);
  });

  it('links every finding to its line in the card as it was sent, and every rule id to its page', async () => {
    const t = setup();
    const result = await t.validate(dualCard);
    const { text } = await page(t, new URL(result.report_url).pathname);
    const pretty = JSON.stringify(dualCard, null, 2).split('\n');
    const ownerLine = pretty.findIndex((l) => l.includes('"owner"')) + 1;
    assert.ok(text.includes(`<a class="at" href="#L${ownerLine}" title="Show line ${ownerLine} in the card">L${ownerLine}</a><code>owner</code>`));
    assert.ok(text.includes(`<div class="row warning" id="L${ownerLine}"><a class="ln" href="#L${ownerLine}">${ownerLine}</a><span class="src">  &#34;owner&#34;: &#34;team-a&#34;,</span></div>`));
    for (const w of result.warnings) assert.ok(text.includes(`<a href="/rules/${w.rule}"><code>${w.rule}</code></a>`), w.rule);
  });

  it('a card sent on one line is shown pretty-printed, each finding at its own line, and says so', async () => {
    const t = setup();
    const result = await (await t.app.request('/v1/validate', postJson(`{"options": {"include_score": true}, "agent_card": ${JSON.stringify(dualCard)}}`))).json();
    assert.ok(result.warnings.length >= 4 && result.warnings.every((w: { line: number }) => w.line === 1), 'the answer places every finding on line 1');
    const { text } = await page(t, new URL(result.report_url).pathname);
    const pretty = JSON.stringify(dualCard, null, 2).split('\n');
    const lineOf = (member: string) => pretty.findIndex((l) => l.startsWith(`  "${member}"`)) + 1;
    for (const member of ['owner', 'team', 'colour', 'url']) {
      const line = lineOf(member);
      assert.ok(line > 1, member);
      assert.ok(text.includes(`<a class="at" href="#L${line}" title="Show line ${line} in the card">L${line}</a><code>${member}</code>`), `${member} at L${line}`);
      assert.ok(text.includes(`<div class="row warning" id="L${line}">`), `line ${line} is marked`);
    }
    assert.equal([...text.matchAll(/<div class="row[^"]*" id="L\d+">/g)].length, pretty.length, 'every pretty-printed line is a row');
    assert.match(text, /The card was sent on one line: it is shown pretty-printed/);
    assert.equal(await (await t.app.request(`${new URL(result.report_url).pathname}/card.json`)).text(), JSON.stringify(dualCard), 'its JSON stays as it was sent');
  });

  it('shows what cost the score points, adding up to the score', async () => {
    const t = setup();
    const result = await t.validate(dualCard);
    assert.equal(result.valid, true);
    const { text } = await page(t, new URL(result.report_url).pathname);
    const points = [...text.matchAll(/<td class="num">−(\d+)<\/td>/g)].map((m) => Number(m[1]));
    assert.ok(points.length >= 4);
    assert.equal(100 - points.reduce((a, b) => a + b, 0), result.score);
    assert.ok(text.includes(`<strong>${result.score}</strong>`));
  });

  it('a ruleset\'s custom rules: the score\'s arithmetic and "what cost points" hold every finding that cost points, with the result\'s numbers; an invalid card would score what the engine gives it once valid', async () => {
    const ruleset = path.join(tempDir(), 'ruleset.yaml');
    // A custom warning (no x-acme-owner member) and a custom error (a provider that is not Acme's), the error at `errorLevel`.
    const rulesetText = (errorLevel: string) => [
      'rules:',
      '  acme.owner:',
      '    description: Every card names its owning team.',
      '    given: $',
      '    then: { field: x-acme-owner, function: defined }',
      '    message: "{{path}} is missing"',
      '  acme.provider:',
      '    description: Acme runs every agent.',
      '    given: $.provider',
      '    then: { field: organization, function: pattern, functionOptions: { match: "^Acme" } }',
      '    message: "{{path}} is {{value}}: {{error}}"',
      `    severity: ${errorLevel}`,
      '',
    ].join('\n');
    fs.writeFileSync(ruleset, rulesetText('error'));
    const t = testApp({ config: { rules: { ruleset } } });
    const scoreOf = async (card: unknown) => {
      const result = await (await t.app.request('/v1/validate', postJson({ options: { include_score: true }, agent_card: card }))).json();
      const { text } = await page(t as ReturnType<typeof setup>, new URL(result.report_url).pathname);
      const section = /<section><h2>Score<\/h2>(.*?)<\/section>/s.exec(text)![1]!;
      const rows = [...section.matchAll(/<tr><td>(.*?)<\/td><td class="num">−(\d+)<\/td><\/tr>/g)].map((m) => [m[1]!.replace(/<[^>]+>/g, ''), Number(m[2])] as const);
      return { result, section, rows, stated: Number(/= <strong>(\d+)<\/strong>/.exec(section)![1]) };
    };

    // The issue's card: a placeholder URL (10 points) and the custom warning (5): 85.
    const acmeCard = { ...clean03(), url: 'https://agent.example.com/a2a', provider: { organization: 'Acme Travel', url: 'https://travel.test' } };
    const flagged = await scoreOf(acmeCard);
    assert.equal(flagged.result.score, 85);
    assert.deepEqual(flagged.result.warnings.map((w: { rule: string }) => w.rule).sort(), ['acme.owner', 'url.placeholder']);
    assert.deepEqual(flagged.rows, [['url.placeholder × 1', 10], ['acme.owner (custom rule) × 1', 5]]);
    assert.match(flagged.section, /100 − 15 = <strong>85<\/strong>\./);
    assert.doesNotMatch(flagged.section, /does not show/);

    // Invalid by the custom error: once valid (the error an info, weighing nothing) the engine scores it 85 too.
    const invalid = await scoreOf({ ...clean03(), url: 'https://agent.example.com/a2a' });
    assert.equal(invalid.result.valid, false);
    assert.equal(invalid.result.score, 0);
    fs.writeFileSync(ruleset, rulesetText('info'));
    const once = await (await testApp({ config: { rules: { ruleset } } }).app.request('/v1/validate', postJson({ options: { include_score: true }, agent_card: { ...clean03(), url: 'https://agent.example.com/a2a' } }))).json();
    assert.equal(once.valid, true);
    assert.equal(invalid.stated, once.score, `would score ${invalid.stated}; valid, it scores ${once.score}`);
    assert.match(invalid.section, /Once valid, with these warnings, it would score 100 − 15 = <strong>85<\/strong>/);
  });

  it('warnings the findings cap left out: what they cost is a row of its own, so the page still adds up to the result\'s score', async () => {
    const t = testApp({ config: { validation: { maxFindings: 2 } } });
    const card = { ...clean03(), url: 'http://agent.travel.test/a2a', iconUrl: 'http://travel.test/icon.png', documentationUrl: 'http://travel.test/docs', colour: 'c', owner: 'o' };
    const result = await (await t.app.request('/v1/validate', postJson({ options: { include_score: true }, agent_card: card }))).json();
    assert.ok(result.truncated?.warnings > 0, 'the cap left warnings out');
    const { text } = await page(t as ReturnType<typeof setup>, new URL(result.report_url).pathname);
    const section = /<section><h2>Score<\/h2>(.*?)<\/section>/s.exec(text)![1]!;
    const points = [...section.matchAll(/<td class="num">−(\d+)<\/td>/g)].map((m) => Number(m[1]));
    assert.equal(100 - points.reduce((a, b) => a + b, 0), result.score);
    assert.match(section, new RegExp(`${result.truncated.warnings} more warnings? the report counted but did not keep`));
    assert.ok(section.includes(`= <strong>${result.score}</strong>.`));
  });

  it('has link-preview tags with the public URL, a Markdown summary, a badge and a UTC time stamp', async () => {
    const t = setup();
    const result = await t.validate(dualCard);
    const { text } = await page(t, new URL(result.report_url).pathname);
    assert.ok(text.includes(`<meta property="og:url" content="${result.report_url}">`));
    assert.ok(text.includes('<meta property="og:title" content="Dual &#60;Agent&#62; · cardgate report">'));
    assert.match(text, /<meta property="og:description" content="Valid, score \d+\/100; 0 errors, \d+ warnings; A2A 0.3.0 rules, as the card declares.">/);
    const markdown = /<pre id="markdown">([\s\S]*?)<\/pre>/.exec(text)![1]!;
    assert.ok(markdown.startsWith('## cardgate: agent card validation'));
    assert.ok(markdown.includes(`[Full report](${result.report_url})`));
    assert.ok(text.includes(`<img src="${new URL(result.report_url).pathname}/badge.svg"`));
    assert.ok(text.includes(`<time datetime="${result.timestamp}">${result.timestamp.slice(0, 16).replace('T', ' ')} UTC</time>`));
  });

  it('a batch links each finding to its line in that card, shown as it was sent under its findings', async () => {
    const t = setup();
    const admin = { authorization: `Bearer ${t.config.adminToken}` };
    const account = await (await t.app.request('/admin/api/accounts', postJson({ name: 'pages', plan: 'pro' }, admin))).json();
    const key = await (await t.app.request(`/admin/api/accounts/${account.account.id}/keys`, postJson({ name: 'pages' }, admin))).json();
    const cards = [{ id: 'good', agent_card: minimalCard() }, { id: 'dual', agent_card: dualCard }];
    const body = `{"cards": [${cards.map((c) => `{"id": ${JSON.stringify(c.id)}, "agent_card": ${JSON.stringify(c.agent_card, null, 2)}}`).join(', ')}]}`;
    const batch = await (await t.app.request('/v1/validate/batch', postJson(body, { authorization: `Bearer ${key.secret}` }))).json();
    const { text } = await page(t, `/reports/${batch.batch_id}`);
    const targets = [...text.matchAll(/<a class="at" href="#([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(targets.length >= 3, 'the dual card\'s findings link to lines');
    for (const target of targets) assert.ok(text.includes(` id="${target}">`), `#${target} is on the page`);
    const ownerLine = JSON.stringify(dualCard, null, 2).split('\n').findIndex((l) => l.includes('"owner"')) + 1;
    assert.ok(text.includes(`<a href="/reports/${batch.batch_id}/card.json?index=1">card</a>`), 'each card\'s whole JSON is linked');
    assert.ok(text.includes(`<div class="row warning" id="c1-L${ownerLine}"><a class="ln" href="#c1-L${ownerLine}">${ownerLine}</a><span class="src">  &#34;owner&#34;: &#34;team-a&#34;,</span></div>`));
  });
});

describe('the rule pages', () => {
  it('GET /rules lists every rule, linked, and filters by version', async () => {
    const t = setup();
    const { res, text } = await page(t, '/rules');
    assert.equal(res.status, 200);
    for (const r of ruleCatalogue) assert.ok(text.includes(`<a href="/rules/${r.id}"><code>${r.id}</code></a>`), r.id);
    const only1 = (await page(t, '/rules?version=1.0')).text;
    for (const r of ruleCatalogue) assert.equal(only1.includes(`href="/rules/${r.id}"`), r.versions.includes('1.0'), r.id);
    assert.equal((await t.app.request('/rules?version=9.9')).status, 400);
  });

  it('GET /rules/<id> says what, why, spec, weight, and shows a failing and a passing example', async () => {
    const t = setup();
    for (const r of ruleCatalogue) {
      const { res, text } = await page(t, `/rules/${r.id}`);
      assert.equal(res.status, 200, r.id);
      for (const part of ['What it checks', 'Why', 'How to fix it', 'Failing example', 'Passing example', 'Score weight']) assert.ok(text.includes(part), `${r.id}: ${part}`);
      // Shown as text: code spans in place of backticks, links around spec sections.
      const shown = text.replace(/<[^>]+>/g, '').replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
      for (const field of [r.description, r.spec, r.fix]) assert.ok(shown.includes(field.replaceAll('`', '')), `${r.id}: ${field}`);
      // The failing example's findings, as the engine reports them, name the rule.
      const failing = text.slice(text.indexOf('Failing example'), text.indexOf('Passing example'));
      assert.ok(failing.includes(`<strong><code>${r.id}</code></strong>`), r.id);
    }
  });

  it('rule pages show code spans, never literal backticks, and link each spec section they cite', async () => {
    const t = setup();
    // 1.0 §5.8 exists in 1.0.1 only, which has no published page of its own.
    const unlinked = new Set(['transport.non-core §5.8']);
    let links = 0;
    for (const r of ruleCatalogue) {
      const { text } = await page(t, `/rules/${r.id}`);
      const about = text.slice(text.indexOf('<h2>What it checks'), text.indexOf('<section><h2>Failing example'));
      assert.ok(about.length > 0, r.id);
      assert.ok(!about.replace(/<[^>]+>/g, '').includes('`'), `${r.id}: a literal backtick`);
      for (const [cite] of r.spec.matchAll(/§\d+(?:\.\d+)*/g)) {
        if (unlinked.has(`${r.id} ${cite}`)) continue;
        assert.match(about, new RegExp(`<a href="https://[^"]+">${cite.replaceAll('.', '\\.')}</a>`), `${r.id}: ${cite} is a link`);
        links += 1;
      }
    }
    assert.ok(links >= 20, `${links} spec sections linked`);
    const preferred = (await page(t, '/rules/transport.preferred.missing')).text;
    assert.ok(preferred.includes('<a href="https://a2a-protocol.org/v0.3.0/specification/#561-main-url-and-preferred-transport">§5.6.1</a>'));
    const header = (await page(t, '/rules/signature.protected-header')).text;
    assert.ok(header.includes('<a href="https://www.rfc-editor.org/rfc/rfc7515#section-4.1.11">§4.1.11</a>'));
    assert.ok(header.includes('<a href="https://a2a-protocol.org/v1.0.0/specification/#842-signature-format">§8.4.2</a>'));
  });
});

describe('the badge', () => {
  /** The fills of the two rects drawn (label, message), in any notation; the clip path's is not drawn. */
  const rects = (svg: string) => {
    const fills = [...svg.slice(svg.indexOf('</clipPath>')).matchAll(/<rect [^>]*fill="([^"]*)"/g)].map((m) => m[1]!);
    assert.equal(fills.length, 2, `two rects drawn: ${svg}`);
    return fills;
  };

  it('every colour keeps white text readable', () => {
    const messageFills = (['valid', 'warn', 'invalid', 'unknown'] as const).map((colour) => {
      const fills = rects(renderBadge('cardgate', { text: colour, colour }));
      for (const fill of fills) assert.ok(contrast('#ffffff', fill) >= 4.5, `white on ${fill} (${colour})`);
      return fills[1];
    });
    assert.equal(new Set(messageFills).size, 4, `each verdict its own colour: ${messageFills}`);
  });

  it('says verdict and score, sized by the width table, cached, white text readable on every colour', async () => {
    const t = setup();
    const good = await t.validate({ ...minimalCard(), preferredTransport: 'JSONRPC' });
    const bad = await t.validate({ ...minimalCard(), name: 7 });
    assert.ok(good.valid && good.score < 80, `a valid card scored under 80 gets the warn colour: ${good.score}`);
    const fills = new Set<string>();
    for (const [result, message] of [[good, `valid ${good.score}/100`], [bad, 'invalid']] as const) {
      const res = await t.app.request(`${new URL(result.report_url).pathname}/badge.svg`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
      assert.match(res.headers.get('cache-control')!, /max-age=\d+/);
      const svg = await res.text();
      assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="\d+" height="20" role="img"/);
      assert.ok(svg.includes(`aria-label="cardgate: ${message}"`), svg);
      assert.ok(svg.includes(`textLength="${textWidth(message)}"`));
      const [left, right] = [...svg.matchAll(/<rect (?:x="\d+" )?width="(\d+)"/g)].slice(1).map((m) => Number(m[1]));
      assert.equal(Number(/width="(\d+)"/.exec(svg)![1]), left! + right!);
      assert.ok(right! >= textWidth(message) + 12);
      for (const fill of rects(svg)) assert.ok(contrast('#ffffff', fill) >= 4.5, `white on ${fill}`);
      fills.add(rects(svg)[1]!);
    }
    assert.equal(fills.size, 2, 'the warn and the invalid badge differ in colour');
  });

  it('an unknown report gets a 404 badge saying so', async () => {
    const t = setup();
    const res = await t.app.request('/reports/rpt_1763726400000_AAAAAAAAAAAAAAAAAAAA/badge.svg');
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
    const svg = await res.text();
    assert.ok(svg.includes('>report not found</text>'));
    for (const fill of rects(svg)) assert.ok(contrast('#ffffff', fill) >= 4.5, `white on ${fill}`);
  });

  it('measures text from the advance-width table', () => {
    assert.equal(textWidth(''), 0);
    assert.equal(textWidth('i'), 3.1); // 278/1000 em at 11 px
    assert.ok(textWidth('WWW') > textWidth('iii') * 3);
    assert.ok(textWidth('ü') > 0, 'a character outside the table still takes room');
  });
});
