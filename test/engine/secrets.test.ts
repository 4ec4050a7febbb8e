/**
 * content.secret: every credential form the rule knows is found wherever it sits in the card (the
 * scan pre-tests each string for a marker literal, so each form must pass that test too), with the
 * path of the value; near misses are not reported. Sample values are assembled at run time so that
 * no secret scanner mistakes this file for a leak.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCard } from '../../src/engine/index.ts';
import { clean03, type Card } from './fixtures.ts';

const run = (n: number, chars = 'aB3') => chars.repeat(Math.ceil(n / chars.length)).slice(0, n);

const credentials: Array<[form: string, value: string, nearMiss: string]> = [
  ['Stripe live key', `sk_${'live'}_${run(24)}`, `sk_live_${run(8)}`],
  ['Stripe test key', `pk_${'test'}_${run(24)}`, `pk_prod_${run(24)}`],
  ['OpenAI project key', `sk-${'proj'}-${run(30)}`, `sk-${run(10)}`],
  ['Anthropic key', `sk-${'ant'}-${run(30)}`, `ask-ant-${run(4)}`],
  ['GitHub token', `gh${'p'}_${run(36)}`, `gh${'p'}_${run(12)}`],
  ['GitHub fine-grained token', `github${'_pat'}_${run(40)}`, `github_path_${run(8)}`],
  ['AWS access key id', `AKIA${'ABCDEFGHIJKLMNOP'}`, 'AKIA-not-a-key-at-all'],
  ['Slack token', `xox${'b'}-${run(24, '12')}`, 'xoxo, the slack bot team'],
  ['Google API key', `AIza${run(35)}`, `AIza${run(10)}`],
  ['JWT', `eyJ${run(20)}.eyJ${run(20)}.${run(20)}`, `eyJ${run(20)} is a header only`],
  ['PEM private key', `-----BEGIN ${'RSA PRIVATE'} KEY-----\nMIIE`, '-----BEGIN CERTIFICATE-----'],
  ['credentials in a URL', `https://admin:${'hunter2pass'}@agent.example.org/`, 'https://agent.example.org/a@b'],
  ['key in a query string', `https://agent.example.org/a2a?api_key=${run(20)}`, 'https://agent.example.org/a2a?page=12345678'],
];

const secretFindings = (card: Card) => validateCard(card).warnings.filter((w) => w.rule === 'content.secret');

test('every credential form is found, in a description, deep in a skill and in an array item, with its path', () => {
  for (const [form, value] of credentials) {
    const card = clean03();
    card.description = `Use ${value} to call us`;
    const skill = (card.skills as Card[])[0]!;
    skill.examples = ['plain example', `${value}`];
    card.metadata = { nested: { deeper: [{ note: value }] } };
    assert.deepEqual(
      secretFindings(card).map((w) => w.path),
      ['description', 'skills[0].examples[1]', 'metadata.nested.deeper[0].note'],
      form,
    );
  }
});

test('near misses of each form are not reported', () => {
  for (const [form, , nearMiss] of credentials) {
    const card = clean03();
    card.description = `Use ${nearMiss} to call us`;
    assert.deepEqual(secretFindings(card), [], form);
  }
});

test('a secret-named field is judged by its value: a placeholder is fine, a real-looking one is not', () => {
  const card = clean03();
  card.config = { api_key: '${API_KEY}', password: '<your password>', token: run(12) };
  assert.deepEqual(secretFindings(card).map((w) => w.path), ['config.token']);
});
