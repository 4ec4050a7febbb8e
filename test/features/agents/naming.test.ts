/** How a validation names its agent: options, webhook metadata, the endpoint URL normalised; the name's bounds. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentAsk, agentNameFromUrl, agentNameProblem, primaryEndpointUrl } from '../../../src/features/agents/naming.ts';
import { badgeTokenMatches } from '../../../src/features/agents/operations.ts';

test('the endpoint URL as a name: scheme and host lower-cased, default port, user info, query, fragment, trailing slash dropped', () => {
  assert.equal(agentNameFromUrl('HTTPS://user:pw@Agent.Example.com:443/a2a/?x=1#f'), 'https://agent.example.com/a2a');
  assert.equal(agentNameFromUrl('http://agent.example.com:8080/'), 'http://agent.example.com:8080');
  assert.equal(agentNameFromUrl('https://agent.example.com/A2A'), 'https://agent.example.com/A2A', 'the path keeps its case');
  for (const bad of ['not a url', 'ftp://agent.example.com/', 'javascript:alert(1)', `https://a.example/${'x'.repeat(300)}`]) assert.equal(agentNameFromUrl(bad), undefined, bad);
});

test('the primary endpoint: url (0.x), else the first supportedInterfaces url (1.0)', () => {
  assert.equal(primaryEndpointUrl({ url: 'https://a.example' }), 'https://a.example');
  assert.equal(primaryEndpointUrl({ supportedInterfaces: [{ url: 'https://b.example' }, { url: 'https://c.example' }] }), 'https://b.example');
  assert.equal(primaryEndpointUrl({ supportedInterfaces: [null] }), undefined);
  assert.equal(primaryEndpointUrl({ url: 42 }), undefined);
});

test('options.agent comes first, then webhook metadata repo + file, then the URL; metadata.branch is kept', () => {
  const card = { url: 'https://agent.example.com/a2a' };
  assert.equal(agentAsk({ agent: 'acme/x' }, card, { repo: 'r', file: 'f.json' }).name, 'acme/x');
  assert.equal(agentAsk({}, card, { repo: 'acme/agents', file: './cards/f.json', branch: 'main' }).name, 'acme/agents/cards/f.json');
  assert.equal(agentAsk({}, card, { repo: 'acme/agents', branch: 'main' }).branch, 'main');
  assert.equal(agentAsk({}, card).name, 'https://agent.example.com/a2a');
  assert.equal(agentAsk({}, {}).name, null);
  assert.equal(agentAsk({}, card, { branch: 'a\u0000b' }).branch, undefined, 'an unprintable branch is not kept');
  assert.equal(agentAsk({}, card).fail_on, 'error');
});

test('names: 1-200 printable characters, no white space at either end', () => {
  assert.equal(agentNameProblem('acme/billing-agent'), undefined);
  assert.equal(agentNameProblem('__proto__'), undefined);
  assert.equal(agentNameProblem('ünïcode 名前'), undefined);
  assert.equal(agentNameProblem('x'.repeat(200)), undefined);
  for (const bad of ['', '   ', 'x'.repeat(201), 'a\nb', 'a\u0085b', 'a\u2028b', '\udc00', ' x']) assert.notEqual(agentNameProblem(bad), undefined, JSON.stringify(bad));
});

test('the badge token is compared whole', () => {
  const agent = { badge_token: 'abcdefgh' };
  assert.equal(badgeTokenMatches(agent, 'abcdefgh'), true);
  for (const wrong of ['abcdefgX', 'abcdefg', 'abcdefghi', '', 'ABCDEFGH']) assert.equal(badgeTokenMatches(agent, wrong), false, wrong);
});

test('the default branch asked for: options.default_branch, then metadata.default_branch, then the branch a gate names; none otherwise', () => {
  const card = { url: 'https://agent.example.com/a2a' };
  assert.equal(agentAsk({ default_branch: 'main' }, card, { default_branch: 'trunk' }).default_branch, 'main');
  assert.equal(agentAsk({}, card, { default_branch: 'trunk' }).default_branch, 'trunk');
  assert.equal(agentAsk({ baseline: 'branch:release' }, card).default_branch, 'release', 'a gate on a branch names the pipeline\'s base');
  assert.equal(agentAsk({ baseline: 'branch:release', default_branch: 'main' }, card).default_branch, 'main');
  assert.equal(agentAsk({ baseline: 'latest' }, card).default_branch, undefined);
  assert.equal(agentAsk({ baseline: 'branch:' }, card).default_branch, undefined, 'an empty branch is none');
  assert.equal(agentAsk({ baseline: `branch:${'x'.repeat(201)}` }, card).default_branch, undefined, 'nor one no option could hold');
  assert.equal(agentAsk({}, card, { default_branch: 'a\u0000b' }).default_branch, undefined, 'an unprintable one is not taken');
  assert.equal(agentAsk({}, card, { default_branch: 7 }).default_branch, undefined);
  assert.equal(agentAsk({ branch: 'feature-x' }, card).default_branch, undefined, 'the branch validated is not the default');
});
