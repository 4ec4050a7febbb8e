/**
 * The documentation as a reader meets it: the README's table names every page of docs/ (and only
 * pages that exist), and what the pages say of the dashboard matches where the dashboard puts it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');

test('the README\'s documentation table lists every page of docs/, each once, each one that exists', () => {
  const readme = read('README.md');
  const table = readme.slice(readme.indexOf('## Documentation'));
  const listed = [...table.matchAll(/^\| \[(docs\/[\w-]+\.md)\]\(\1\) \|/gm)].map((m) => m[1]!);
  const pages = readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  assert.deepEqual([...listed].sort(), [...pages].sort());
  assert.equal(new Set(listed).size, listed.length, 'each page once');
});

test('docs/agents.md puts the Delete button where the dashboard has it (test/dashboard/agents.test.ts clicks it there): on the agent\'s page', () => {
  const agents = read('docs/agents.md');
  assert.doesNotMatch(agents, /beside each agent/);
  assert.match(agents.replace(/\s+/g, ' '), /The dashboard's agent page \(an agent of the Agents view\) has a \*Delete agent\* button under \*Delete this agent\*/);
});
