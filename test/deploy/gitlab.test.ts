/**
 * The GitLab template's two argument lists, run as GitLab runs them (without GitLab or Docker):
 * the `cardgate` job's script in a shell with the template's variables, and the sidecar service's
 * `command` as arguments of each image's entrypoint (the distroless image's is the binary, the CI
 * image's is ci/image/entrypoint.sh). `cardgate` is build/out/cardgate when it was built, else the
 * sources through tsx (CI runs the tests before it builds).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { accountWithKey } from '../support/accounts.ts';
import { minimalCard } from '../support/cards.ts';
import { startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { startAgent } from '../support/a2a-agents.ts';

const root = new URL('../..', import.meta.url).pathname;
const tempDir = tempDirFactory('cardgate-gitlab-');
const template = readFileSync(join(root, 'ci/gitlab/cardgate.gitlab-ci.yml'), 'utf8');
const entrypoint = join(root, 'ci/image/entrypoint.sh');
const binary = join(root, 'build/out/cardgate');

/** A directory holding `cardgate`: the built binary, or a script running the sources. */
const cardgateDir = (() => {
  const dir = tempDir();
  const target = join(dir, 'cardgate');
  const run = existsSync(binary) ? `exec '${binary}' "$@"` : `exec '${process.execPath}' --import '${import.meta.resolve('tsx')}' '${join(root, 'src/main.ts')}' "$@"`;
  writeFileSync(target, `#!/bin/sh\n${run}\n`);
  chmodSync(target, 0o755);
  return dir;
})();
const PATH = `${cardgateDir}:${process.env.PATH}`;

/** The lines of a top-level block (`name:` at column 0) up to the next one. */
const block = (name: string): string[] => {
  const lines = template.split('\n');
  const start = lines.indexOf(`${name}:`);
  assert.ok(start >= 0, `the template has ${name}`);
  const end = lines.findIndex((line, i) => i > start && /^\S/.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end);
};

/** The template's top-level variables (`NAME: value` or `NAME: "value"`). */
const variables = (): Record<string, string> =>
  Object.fromEntries(
    block('variables')
      .map((line) => /^ {2}([A-Z_]+): (.*)$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!.replace(/^"(.*)"$/, '$1')]),
  );

/** The job's `script:` items as one shell script: single-line items and `- |` blocks. */
const jobScript = (job: string): string => {
  const lines = block(job);
  const start = lines.indexOf('  script:');
  assert.ok(start >= 0, `${job} has a script`);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith('    ')) break;
    if (line.startsWith('    - ')) items.push(line.slice(6));
    else if (line.startsWith('      ')) items[items.length - 1] += `\n${line.slice(6)}`;
  }
  assert.ok(items.length >= 3, `${job}'s script has its steps`);
  // A job stops at its first failing line, as GitLab's shell does.
  return ['set -e', ...items.map((item) => (item.startsWith('|\n') ? item.slice(2) : item))].join('\n');
};

const run = (argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}) => {
  const child = spawn(argv[0]!, argv.slice(1), { cwd: options.cwd ?? tempDir(), env: { ...process.env, PATH, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => (clearTimeout(timer), resolve(code))));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
};

/** A directory holding the card at .well-known/agent-card.json. */
const workspace = (card: unknown) => {
  const dir = tempDir();
  mkdirSync(join(dir, '.well-known'));
  writeFileSync(join(dir, '.well-known/agent-card.json'), `${JSON.stringify(card, null, 2)}\n`);
  return dir;
};

describe('the template\'s job script', () => {

  test('the default image is the CI image built by the Dockerfile, and it runs cardgate', () => {
    const { CARDGATE_IMAGE, CARDGATE } = variables();
    assert.match(CARDGATE_IMAGE!, /cardgate:ci$/);
    assert.equal(CARDGATE, 'cardgate');
    assert.match(readFileSync(join(root, 'Dockerfile'), 'utf8'), /^FROM \S+ AS ci$/m);
  });

  for (const [what, card, code] of [
    ['a valid card passes', minimalCard('GitLab Agent'), 0],
    ['an invalid card fails the job', { ...minimalCard('GitLab Agent'), name: undefined }, 1],
  ] as const) {
    test(`${what}, with both reports written`, async () => {
      const cwd = workspace(card);
      const job = run(['sh', '-c', jobScript('cardgate')], { cwd, env: variables() });
      assert.equal(await job.exited, code, job.stdout() + job.stderr());
      const quality = JSON.parse(readFileSync(join(cwd, 'gl-code-quality-report.json'), 'utf8')) as Array<{ severity: string; location: { path: string } }>;
      assert.ok(quality.length > 0, 'the sample card has warnings at least');
      // Errors are reported above `minor` (warnings): only the invalid card has any.
      assert.equal(quality.some((issue) => !['info', 'minor'].includes(issue.severity)), code === 1, JSON.stringify(quality));
      for (const issue of quality) assert.equal(issue.location.path, '.well-known/agent-card.json');
      assert.match(readFileSync(join(cwd, 'cardgate-junit.xml'), 'utf8'), /<testsuites/);
    });
  }
});

test('CARDGATE_PROBE_URL: the deployed agent probed once, its live findings in the Code Quality report, its verdict the job\'s', async () => {
  const agent = await startAgent({ declares: '1.0', speaks: ['0.3'] });
  try {
    const cwd = workspace(minimalCard('GitLab Agent'));
    const job = run(['sh', '-c', jobScript('cardgate')], { cwd, env: { ...variables(), CARDGATE_PROBE_URL: agent.url, CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'loopback' } });
    assert.equal(await job.exited, 1, job.stdout() + job.stderr());
    const probed = JSON.parse(readFileSync(join(cwd, 'gl-code-quality-probe.json'), 'utf8')) as Array<{ check_name: string; severity: string }>;
    assert.ok(probed.some((issue) => issue.check_name === 'live.version' && !['info', 'minor'].includes(issue.severity)), JSON.stringify(probed));
    assert.equal(agent.requests.filter((r) => r.path === '/.well-known/agent-card.json' && r.method === 'GET' && r.headers['if-none-match'] === undefined).length, 1, 'probed once');
    assert.equal(agent.messages(), 0);
  } finally {
    await agent.close();
  }
});

describe('the merge-request gate (.cardgate-gate) against the real server', () => {
  let server: RunningServer | undefined;
  after(async () => {
    await server?.stop();
  });

  test('a branch pipeline records the card; a merge request fails only when a card regresses against its target branch', async () => {
    server = await startServer({ env: { CARDGATE_LIMIT_PRO: '-1' } });
    const { key } = await accountWithKey(server.url, 'gitlab');
    const invalid = { ...minimalCard('GitLab Agent'), description: undefined };
    const gate = async (card: unknown, env: Record<string, string>) => {
      const cwd = workspace(card);
      const job = run(['sh', '-c', jobScript('.cardgate-gate')], {
        cwd,
        env: { CARDGATE_URL: server!.url, CARDGATE_API_KEY: key, CARDGATE_FAIL_ON: 'error', CARDGATE_GATE_FILES: '.well-known/agent-card.json', CI_PROJECT_PATH: 'acme/agents', ...env },
      });
      return { code: await job.exited, out: job.stdout() + job.stderr() };
    };
    const onMain = await gate(invalid, { CI_COMMIT_REF_NAME: 'main' });
    assert.equal(onMain.code, 1, `an invalid card fails a branch pipeline: ${onMain.out}`);
    assert.match(onMain.out, /valid: false/);
    const mr = { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main', CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature', CI_COMMIT_REF_NAME: 'feature' };
    const same = await gate(invalid, mr);
    assert.equal(same.code, 0, `no regression: ${same.out}`);
    assert.match(same.out, /0 new errors, .* passed: true/);
    const worse = await gate({ ...invalid, url: 'not a url' }, mr);
    assert.equal(worse.code, 1, worse.out);
    assert.match(worse.out, /: 1 new error, \d+ new warnings?, .* passed: false/);
    // The report and what changed since the target branch's, each an address that answers.
    const line = /score (-?\d+|n\/a) against (val_\w+); passed: false; report (\S+); what changed (\S+)$/m.exec(worse.out);
    assert.ok(line, worse.out);
    const [, , baselineId, reportUrl, diffUrl] = line;
    assert.equal(diffUrl, `${server.url}/reports/${baselineId}/diff/${reportUrl!.split('/').at(-1)}`);
    for (const url of [reportUrl!, diffUrl!]) assert.equal((await fetch(url, { headers: { accept: 'text/html' } })).status, 200, url);
    // CARDGATE_FAIL_ON breaking: an invalid card does not fail the branch pipeline; the new error passes the merge request; a skill removed fails it.
    const breaking = { CARDGATE_FAIL_ON: 'breaking' };
    assert.equal((await gate(invalid, { ...breaking, CI_COMMIT_REF_NAME: 'main' })).code, 0, 'a branch pipeline fails on no finding');
    const newError = await gate({ ...invalid, name: 42 }, { ...mr, ...breaking });
    assert.equal(newError.code, 0, newError.out);
    assert.match(newError.out, /: 1 new error, \d+ new warnings?, \d+ fixed, 0 breaking changes, score \S+ against \S+; passed: true/);
    const noSkill = await gate({ ...invalid, skills: [] }, { ...mr, ...breaking });
    assert.equal(noSkill.code, 1, noSkill.out);
    assert.match(noSkill.out, /, 1 breaking change, score \S+ against \S+; passed: false/);
    const noBase = await gate(invalid, { ...mr, CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'never-built', CARDGATE_BASELINE_MISSING: 'fail' });
    assert.equal(noBase.code, 2, noBase.out);
    assert.match(noBase.out, /HTTP 400: .*options\.baseline/);
  });

  test('a merge request before its target branch has a report of the agent: no gate, said so, the card judged as in a branch pipeline; counts singular and plural', async () => {
    const { key } = await accountWithKey(server!.url, 'gitlab-first');
    const gate = async (card: unknown, env: Record<string, string>) => {
      const job = run(['sh', '-c', jobScript('.cardgate-gate')], {
        cwd: workspace(card),
        env: { CARDGATE_URL: server!.url, CARDGATE_API_KEY: key, CARDGATE_FAIL_ON: 'error', CARDGATE_GATE_FILES: '.well-known/agent-card.json', CI_PROJECT_PATH: 'acme/first', ...env },
      });
      return { code: await job.exited, out: job.stdout() + job.stderr() };
    };
    const mr = { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main', CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature', CI_COMMIT_REF_NAME: 'feature' };
    const oneWarning = { ...minimalCard('GitLab Agent'), url: 'http://agents.acme-corp.io/a2a' };
    const first = await gate(oneWarning, mr);
    assert.equal(first.code, 0, first.out);
    assert.match(first.out, /^\.well-known\/agent-card\.json: no gate ran: the agent has no report of branch:main yet \(the server: options\.baseline: this agent has no report of branch "main": .*\), so the card was validated without a baseline and judged by its findings as in a branch pipeline; .*once branch:main has a report of this agent the next pipeline gates it$/m);
    assert.match(first.out, /^\.well-known\/agent-card\.json: valid: true, 0 errors, (1 warning|[02-9]\d* warnings); report (\S+)$/m, 'counted right');
    const reportUrl = /report (\S+)$/m.exec(first.out)![1]!;
    const report = await fetch(reportUrl, { headers: { accept: 'application/json' } }).then((r) => r.json());
    assert.equal(report.result.agent.branch, 'feature', 'still keyed: the report joined the agent\'s history on its branch');
    const invalid = await gate({ ...minimalCard('GitLab Agent'), description: undefined }, mr);
    assert.equal(invalid.code, 1, `an invalid card fails as in a branch pipeline: ${invalid.out}`);
    assert.match(invalid.out, /no gate ran/);
    assert.match(invalid.out, /valid: false, 1 error, /);
    assert.equal((await gate({ ...minimalCard('GitLab Agent'), description: undefined }, { ...mr, CARDGATE_FAIL_ON: 'breaking' })).code, 0, 'breaking: no baseline, nothing breaks');
    // Once main has a report of the agent, the next merge request gates.
    assert.equal((await gate(oneWarning, { CI_COMMIT_REF_NAME: 'main' })).code, 0);
    const gated = await gate(oneWarning, mr);
    assert.equal(gated.code, 0, gated.out);
    assert.doesNotMatch(gated.out, /no gate ran/);
    assert.match(gated.out, /: 0 new errors, 0 new warnings, 0 fixed, 0 breaking changes, score 0 against val_\w+; passed: true; /);
  });

  test('adoption day: a merge request first (no baseline yet), then the default branch\'s pipeline: the agent\'s default branch is CI_DEFAULT_BRANCH and its badge shows that branch\'s', async () => {
    const { key } = await accountWithKey(server!.url, 'gitlab-adoption');
    const gate = async (card: unknown, env: Record<string, string>) => {
      const job = run(['sh', '-c', jobScript('.cardgate-gate')], {
        cwd: workspace(card),
        env: { CARDGATE_URL: server!.url, CARDGATE_API_KEY: key, CARDGATE_FAIL_ON: 'error', CARDGATE_GATE_FILES: '.well-known/agent-card.json', CI_PROJECT_PATH: 'acme/adopted', CI_DEFAULT_BRANCH: 'main', ...env },
      });
      return { code: await job.exited, out: job.stdout() + job.stderr() };
    };
    const mr = await gate({ ...minimalCard('GitLab Agent'), description: undefined }, { CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main', CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'feature-x', CI_COMMIT_REF_NAME: 'feature-x' });
    assert.equal(mr.code, 1, mr.out);
    assert.match(mr.out, /no gate ran/);
    const report = await fetch(/report (\S+)$/m.exec(mr.out)![1]!, { headers: { accept: 'application/json' } }).then((r) => r.json());
    assert.equal(report.result.agent.branch, 'feature-x');
    const agentOf = () => fetch(`${server!.url}/agents/${report.result.agent.id}`, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } }).then((r) => r.json());
    assert.equal((await agentOf()).agent.default_branch, 'main', 'not the merge request\'s branch');
    assert.equal((await gate(minimalCard('GitLab Agent'), { CI_COMMIT_REF_NAME: 'main' })).code, 0);
    const { badge_url } = await agentOf();
    const badge = await (await fetch(badge_url.replace(/^https?:\/\/[^/]+/, server!.url))).text();
    assert.doesNotMatch(badge, /invalid/, 'main\'s report, not the failing merge request\'s');
    assert.match(badge, /valid/);
  });

  test('CARDGATE_AGENT names a single card\'s agent (as a monitor of it is named); with several files it is refused before anything is sent', async () => {
    const { key } = await accountWithKey(server!.url, 'gitlab-agent');
    const gate = async (files: string) => {
      const job = run(['sh', '-c', jobScript('.cardgate-gate')], {
        cwd: workspace(minimalCard('GitLab Agent')),
        env: { CARDGATE_URL: server!.url, CARDGATE_API_KEY: key, CARDGATE_FAIL_ON: 'error', CARDGATE_GATE_FILES: files, CARDGATE_AGENT: 'acme/billing-agent', CI_PROJECT_PATH: 'acme/agents', CI_COMMIT_REF_NAME: 'main' },
      });
      return { code: await job.exited, out: job.stdout() + job.stderr() };
    };
    const one = await gate('.well-known/agent-card.json');
    assert.equal(one.code, 0, one.out);
    const reportUrl = /report (\S+)$/m.exec(one.out)![1]!;
    const report = await fetch(reportUrl, { headers: { accept: 'application/json' } }).then((r) => r.json());
    assert.deepEqual([report.result.agent.name, report.result.agent.branch], ['acme/billing-agent', 'main']);
    const two = await gate('.well-known/agent-card.json .well-known/agent-card.json');
    assert.equal(two.code, 2, two.out);
    assert.match(two.out, /CARDGATE_AGENT names one card's agent, and CARDGATE_GATE_FILES names 2 files/);
    assert.doesNotMatch(two.out, /valid:/, 'nothing was sent');
  });

  test('a branch pipeline whose card joins no agent says so (a later merge request would have no baseline), and passes', async () => {
    await server?.stop();
    server = await startServer({ env: { CARDGATE_LIMIT_PRO: '-1', CARDGATE_AGENTS_MAX_PER_ACCOUNT: '1' } });
    const { key } = await accountWithKey(server.url, 'gitlab-full');
    const other = await fetch(`${server.url}/v1/validate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_card: minimalCard('Other'), options: { agent: 'acme/other' } }),
    });
    assert.equal(other.status, 200, 'the account\'s one agent');
    const gate = async (apiKey: string) => {
      const job = run(['sh', '-c', jobScript('.cardgate-gate')], {
        cwd: workspace(minimalCard('GitLab Agent')),
        env: { CARDGATE_URL: server!.url, CARDGATE_API_KEY: apiKey, CARDGATE_FAIL_ON: 'error', CARDGATE_GATE_FILES: '.well-known/agent-card.json', CI_PROJECT_PATH: 'acme/agents', CI_COMMIT_REF_NAME: 'main' },
      });
      return { code: await job.exited, out: job.stdout() + job.stderr() };
    };
    const atBound = await gate(key);
    assert.equal(atBound.code, 0, `a bookkeeping bound never fails the pipeline: ${atBound.out}`);
    assert.match(atBound.out, /valid: true/);
    assert.match(atBound.out, /joined no agent: .*agents\.maxPerAccount/);
    const unknownKey = await gate('cardgate_unknownunknownunknownunknown');
    assert.equal(unknownKey.code, 0, unknownKey.out);
    assert.match(unknownKey.out, /joined no agent: the key identifies no account/);
  });
});

describe('the sidecar service\'s command, through each image\'s entrypoint', () => {
  const command = JSON.parse(/^ {6}command: (\[.*\])$/m.exec(block('.cardgate-sidecar').join('\n'))?.[1] ?? 'null') as string[];
  // Loopback and any free port here, whatever the template binds (the last flag wins).
  const here = () => ['--host', '127.0.0.1', '--port', '0', '--data-dir', join(tempDir(), 'data')];
  const started: Array<ReturnType<typeof run>> = [];
  after(async () => {
    for (const server of started) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  test('the command starts with the subcommand and asks for sidecar mode', () => {
    assert.equal(command[0], 'serve');
    assert.ok(command.includes('--sidecar'));
  });

  for (const [image, prefix] of [
    ['distroless (entrypoint: the binary)', ['cardgate']],
    ['ci (entrypoint: ci/image/entrypoint.sh)', ['sh', entrypoint]],
  ] as const) {
    test(`${image}: a sidecar that validates keyless past the anonymous limit`, async () => {
      const server = run([...prefix, ...command, ...here()]);
      started.push(server);
      const listening = await new Promise<{ url: string; mode: string }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not listening in 30 s: ${server.stdout()}${server.stderr()}`)), 30_000);
        server.child.stdout.on('data', () => {
          const line = server.stdout().split('\n').find((l) => l.includes('"msg":"listening"'));
          if (line) (clearTimeout(timer), resolve(JSON.parse(line)));
        });
        void server.exited.then((code) => reject(new Error(`exited ${code}: ${server.stderr()}`)));
      });
      assert.equal(listening.mode, 'sidecar');
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${listening.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent_card: minimalCard() }) });
        assert.equal(res.status, 200);
      }
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    });
  }

  test('the CI image\'s entrypoint runs a job\'s shell as it is; the old command through the binary is a usage error', async () => {
    const shell = run(['sh', entrypoint, 'sh', '-c', 'cardgate version']);
    assert.equal(await shell.exited, 0, shell.stderr());
    assert.match(shell.stdout(), /^cardgate \d+\.\d+\.\d+ \(Node\.js v24\.\d+\.\d+, linux-x64\)\n$/);
    // The form that failed before: the binary as the entrypoint takes `cardgate` for an unknown subcommand.
    const doubled = run(['cardgate', 'cardgate', ...command, ...here()]);
    assert.equal(await doubled.exited, 2, doubled.stderr());
  });
});
