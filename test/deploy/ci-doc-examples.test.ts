/**
 * The pull-request gate examples of docs/agents.md, read as a stranger copies them: each YAML
 * block parses, the Action's `with:` names only inputs action.yml declares, and the GitLab job
 * extends a job of the template it includes and sets only variables that job's script reads.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';

const root = new URL('../..', import.meta.url).pathname;
const read = (path: string): string => readFileSync(join(root, path), 'utf8');
const yamlBlocks = [...read('docs/agents.md').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parse(m[1]!) as Record<string, unknown>);

test('docs/agents.md: the GitHub Action example names only inputs of action.yml', () => {
  const inputs = Object.keys((parse(read('action.yml')) as { inputs: Record<string, unknown> }).inputs);
  const workflows = yamlBlocks.filter((b) => 'jobs' in b) as Array<{ jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, unknown> }> }> }>;
  const steps = workflows.flatMap((w) => Object.values(w.jobs).flatMap((j) => j.steps)).filter((s) => s.uses?.includes('/cardgate@'));
  assert.ok(steps.length > 0, 'the doc shows the Action in a workflow');
  for (const step of steps) {
    for (const name of Object.keys(step.with ?? {})) assert.ok(inputs.includes(name), `action.yml has the input ${name}`);
    assert.ok(step.with?.baseline !== undefined, 'the gate example sets baseline');
  }
});

test('docs/agents.md: the GitLab example extends a job of the included template and sets variables its script reads', () => {
  const jobs = yamlBlocks.filter((b) => 'include' in b);
  assert.ok(jobs.length > 0, 'the doc shows the GitLab template included');
  for (const doc of jobs) {
    const include = (doc.include as Array<{ file: string }>)[0]!;
    assert.ok(existsSync(join(root, include.file)), `${include.file} is in the repository`);
    const template = parse(read(include.file)) as Record<string, { script?: string[]; variables?: Record<string, unknown> }>;
    const own = Object.entries(doc).filter(([name]) => name !== 'include') as Array<[string, { extends: string; variables: Record<string, unknown> }]>;
    assert.ok(own.length > 0, 'the doc defines a job');
    for (const [, job] of own) {
      const base = template[job.extends];
      assert.ok(base?.script, `the template has ${job.extends}`);
      const script = base.script.join('\n');
      for (const name of Object.keys(job.variables)) assert.ok(script.includes(`$${name}`), `${job.extends} reads $${name}`);
    }
  }
});
