/**
 * The real-card corpus against the official schemas' verdicts (cards/INDEX.tsv): a card the official
 * schema accepts is accepted, unless it breaks a MUST of the specification text (each such card is
 * listed below with the MUST); a card the official schema rejects, or that is not JSON, is rejected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { validateCard, type CardResult } from '../../src/engine/index.ts';
import { a2aCards, cardsDir, corpusIndex, nonstandardCards } from './corpus.ts';

/** Schema-valid cards that break a MUST of the spec text: the one error each must get. */
const mustExceptions: Record<string, { rule: string; path: string }> = {
  // An interface's url MUST be an absolute URL (here "/api/a2a").
  'Coolock-Village__meitheal__public_well-known_agent-card.json': { rule: 'url.absolute', path: 'supportedInterfaces[0].url' },
  // The card's url MUST be an absolute URL (here "REMPLACER_PAR_L_ENDPOINT_A2A", a placeholder).
  'OrbiAds__Orbiads-GAM-A2A__agent-card.json': { rule: 'url.absolute', path: 'url' },
};

const corpus = new Map([...a2aCards(), ...nonstandardCards()].map((c) => [c.file, c]));
const index = corpusIndex();
const results = new Map<string, CardResult>();
const resultOf = (file: string): CardResult => {
  let r = results.get(file);
  if (!r) results.set(file, (r = validateCard(corpus.get(file)!.card)));
  return r;
};

test('INDEX.tsv lists every corpus file, once', () => {
  const onDisk = [
    ...readdirSync(cardsDir).filter((f) => f.endsWith('.json')),
    ...readdirSync(path.join(cardsDir, 'nonstandard')).map((f) => `nonstandard/${f}`),
  ].sort();
  assert.deepEqual(index.map((r) => r.file).sort(), onDisk);
  assert.deepEqual([...corpus.keys()].sort(), onDisk);
});

test('every card the official schema accepts is accepted, except those that break a MUST of the spec text', () => {
  const accepted = index.filter((r) => r.officialVerdict === 'yes');
  assert.equal(accepted.length, 26);
  const wrong: string[] = [];
  for (const { file } of accepted) {
    const r = resultOf(file);
    const must = mustExceptions[file];
    const got = r.errors.map((e) => `${e.rule}@${e.path}`);
    const want = must ? [`${must.rule}@${must.path}`] : [];
    if (got.join() !== want.join()) wrong.push(`${file}: errors ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
  assert.deepEqual(wrong, []);
  for (const file of Object.keys(mustExceptions)) assert.equal(index.find((r) => r.file === file)?.officialVerdict, 'yes', file);
});

test('every card the official schema rejects is rejected, and every file that is not JSON', () => {
  const rejected = index.filter((r) => r.officialVerdict !== 'yes');
  assert.equal(rejected.length, 109);
  const accepted = rejected.filter(({ file, officialVerdict }) => {
    const card = corpus.get(file)!;
    if (officialVerdict === 'n/a') return card.parsed; // not JSON: no card to validate
    return !card.parsed || resultOf(file).valid;
  });
  assert.deepEqual(accepted.map((r) => r.file), []);
});

test('the official spec samples declaring the unpublished "0.2.9": accepted by the 0.2.6 rules, with a warning saying so', () => {
  for (const spec of ['v0.2.5', 'v0.2.6', 'v0.3.0']) {
    const r = resultOf(`a2aproject__A2A__docs_specification-${spec}_sample-agent-card.json`);
    assert.deepEqual([r.valid, r.version, r.versionSource, r.compatibility], [true, '0.2.6', 'declared', undefined], spec);
    const w = r.warnings.filter((x) => x.rule === 'protocolVersion.unpublished');
    assert.deepEqual(w.map((x) => x.path), ['protocolVersion'], spec);
    assert.match(w[0]!.message, /"0\.2\.9" was never published; validated by the 0\.2\.6 rules/);
  }
});

test('a card declaring 0.3.0 that also carries supportedInterfaces: accepted by the 0.3.0 rules, its 1.0 failures as warnings', () => {
  const r = resultOf('0spoon__seamless__docs_well-known_agent-card.json');
  assert.deepEqual([r.valid, r.version, r.versionSource], [true, '0.3.0', 'declared']);
  assert.deepEqual(r.compatibility, { '1.0': { valid: false, errors: 2, warnings: 11 } });
  assert.deepEqual(r.warnings.filter((w) => w.rule === 'compatibility.other-version').map((w) => w.path),
    ['supportedInterfaces[0].protocolVersion', 'securitySchemes.bearer']);
  assert.ok(r.score > 0);
});

test('messages do not repeat their path: a message names its field by its own key', () => {
  const repeating: string[] = [];
  for (const { file, card, parsed } of corpus.values()) {
    if (!parsed) continue;
    for (const options of [{}, { protocolVersion: '0.2.0' }, { protocolVersion: '1.0' }]) {
      const r = validateCard(card, options);
      for (const i of [...r.errors, ...r.warnings]) {
        // A top-level field (or item) is its own name: `name is required` at `name`.
        const ownName = /^[A-Za-z_$][\w$-]*(?:\[\d+\])*$/.test(i.path);
        if (!ownName && i.message.includes(i.path)) repeating.push(`${file}: ${i.path}: ${i.message}`);
      }
    }
  }
  assert.deepEqual(repeating.slice(0, 10), []);
});
