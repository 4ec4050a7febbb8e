/**
 * The GitHub Action run the way a runner runs it: `node action/dist/index.cjs` (the committed
 * bundle) or its source, in the workspace, with the INPUT_* variables and the GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files a runner sets.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../src/lib/clock.ts';
import { invalidCard, notJson, warnedCard } from '../engine/formats/cards.ts';
import { everyOf } from '../support/checks.ts';
import { accountWithKey } from '../support/accounts.ts';
import { runCli, startServer, type RunningServer } from '../support/server.ts';
import { tempDirFactory } from '../support/temp.ts';
import { startAgent } from '../support/a2a-agents.ts';
import { awaitWindowRoom } from '../support/windows.ts';

const root = new URL('../..', import.meta.url).pathname;
const newDir = tempDirFactory('cardgate-action-');
// Runs of the committed bundle are runs of the sources only while it is fresh: the first test checks that.
const bundle = [process.execPath, path.join(root, 'action/dist/index.cjs')];

/** A workspace with cards, the step's files, and a run of the action in it with `inputs`. */
const runAction = async (inputs: Record<string, string>, cards: Record<string, string> = {}, extraEnv: Record<string, string> = {}) => {
  const workspace = newDir();
  const put = (name: string, text: string) => {
    mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    writeFileSync(path.join(workspace, name), text);
  };
  put('cards/.well-known/agent-card.json', warnedCard);
  put('cards/broken/x.agent-card.json', invalidCard);
  put('other/not-json.json', notJson);
  put('adk/agent_card.json', warnedCard);
  const outputFile = path.join(workspace, '.github-output');
  const summaryFile = path.join(workspace, '.github-summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const env: Record<string, string> = { GITHUB_OUTPUT: outputFile, GITHUB_STEP_SUMMARY: summaryFile, GITHUB_WORKSPACE: workspace };
  // A runner sets every input, the unset ones empty, named as in action.yml upper-cased with hyphens kept.
  for (const name of ['files', 'patterns', 'format', 'fail-on', 'max-warnings', 'server-url', 'api-key', 'protocol-version', 'sarif-file', 'baseline', 'baseline-missing', 'branch', 'agent', 'probe-url']) {
    env[`INPUT_${name.toUpperCase()}`] = inputs[name] ?? '';
  }
  env.GITHUB_REPOSITORY = 'acme/agents';
  for (const [name, text] of Object.entries(cards)) put(name, text);
  const r = await runCli([], { command: bundle, cwd: workspace, env: { ...env, ...extraEnv } });
  /** GITHUB_OUTPUT in the `name<<delimiter` form. */
  const outputs: Record<string, string> = {};
  const lines = readFileSync(outputFile, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(m[2]!, i + 1);
    outputs[m[1]!] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return { ...r, workspace, outputs, summary: readFileSync(summaryFile, 'utf8'), annotations: r.stdout.split('\n').filter((l) => l.startsWith('::')) };
};

describe('the GitHub Action', () => {
  it('the committed bundle is what `npm run build` makes of the sources', async () => {
    const r = await runCli(['action', '--check'], { command: [process.execPath, path.join(root, 'build/build.mjs')] });
    assert.equal(r.code, 0, r.stderr);
  });

  it('probe-url: the deployed preview probed read-only, its live findings annotated and counted', async () => {
    const agent = await startAgent({ declares: '1.0', speaks: ['0.3'] });
    try {
      const r = await runAction({ files: 'adk', 'probe-url': agent.url }, {}, { CARDGATE_CARD_FETCH_ALLOWED_HOSTS: 'loopback' });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.ok(r.annotations.some((a) => a.startsWith(`::error file=${agent.cardUrl.replaceAll(':', '%3A')},line=1,`) && a.includes('title=live.version::')), r.stdout);
      assert.match(r.summary, /live\.version/);
      assert.equal(agent.messages(), 0, 'read-only');
      const refused = await runAction({ files: 'adk', 'probe-url': 'http://169.254.169.254/' });
      assert.equal(refused.code, 2);
      assert.match(refused.stdout, /probe-url: .*169\.254\.169\.254 is link-local/);
    } finally {
      await agent.close();
    }
  });

  it('annotations with lines, step summary, outputs, SARIF file, exit by fail-on', async () => {
    const r = await runAction({ files: 'cards', 'sarif-file': 'cardgate.sarif' });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(r.annotations.some((a) => a.startsWith('::warning file=cards/.well-known/agent-card.json,line=12,col=58,title=')), r.stdout);
    assert.ok(r.annotations.some((a) => a.startsWith('::error file=cards/broken/x.agent-card.json,line=4,col=13,title=')), r.stdout);
    assert.match(r.annotations.at(-1)!, /^::error title=cardgate::2 cards checked: the cards fail \(fail-on: error\); \d+ errors?, \d+ warnings?$/);
    assert.equal(r.outputs.valid, 'false');
    assert.ok(Number(r.outputs.errors) >= 1 && Number(r.outputs.warnings) >= 4, JSON.stringify(r.outputs));
    assert.equal(r.outputs.score, '0');
    assert.equal(r.outputs['sarif-file'], 'cardgate.sarif');
    assert.equal(JSON.parse(readFileSync(path.join(r.workspace, 'cardgate.sarif'), 'utf8')).version, '2.1.0');
    assert.match(r.summary, /x\.agent-card\.json/);
    assert.match(r.stdout, /^cards\/broken\/x\.agent-card\.json:4:13 {2}error/m, 'the text report in the log');
  });

  it('a valid run passes: outputs valid=true and the lowest score; fail-on warning and max-warnings fail it', async () => {
    const pass = await runAction({ files: 'cards/.well-known/agent-card.json', format: 'github' });
    assert.equal(pass.code, 0, pass.stdout);
    assert.equal(pass.outputs.valid, 'true');
    assert.equal(pass.outputs.errors, '0');
    assert.ok(Number(pass.outputs.score) > 0 && Number(pass.outputs.score) < 100, pass.outputs.score);
    assert.equal(pass.outputs['sarif-file'], '');
    everyOf(pass.annotations, 'format github: the annotations only, warnings and notices (information), no error', (a) => a.startsWith('::warning ') || a.startsWith('::notice '));
    assert.ok(pass.annotations.some((a) => a.startsWith('::notice ')), 'the card names no provider: a notice');
    assert.equal((await runAction({ files: 'cards/.well-known/agent-card.json', 'fail-on': 'warning' })).code, 1);
    assert.equal((await runAction({ files: 'cards/.well-known/agent-card.json', 'max-warnings': '1' })).code, 1);
  });

  it('an input that cannot be checked fails the step with exit 2, annotated at its position; bad inputs are named', async () => {
    const r = await runAction({ files: 'other/not-json.json missing.json', 'fail-on': 'never' });
    assert.equal(r.code, 2);
    assert.ok(r.annotations.some((a) => a.startsWith('::error file=other/not-json.json,line=3,col=1,title=input.unreadable::not valid JSON')), r.stdout);
    assert.ok(r.annotations.some((a) => a === '::error file=missing.json,title=input.unreadable::no such file or directory: missing.json'), r.stdout);
    const bad = await runAction({ 'fail-on': 'info' });
    assert.equal(bad.code, 2);
    assert.deepEqual(bad.annotations, ['::error title=cardgate::fail-on must be one of error, warning, never, not "info"']);
  });

  it("the docs' example (files: .well-known/agent-card.json agents/) checks a card named as the search finds it; a directory without one fails the step with no score of 0", async () => {
    const docs = await runAction({ files: '.well-known/agent-card.json agents/', 'fail-on': 'never' }, { '.well-known/agent-card.json': warnedCard, 'agents/billing.agent-card.json': warnedCard });
    assert.equal(docs.code, 0, docs.stdout);
    assert.ok(docs.annotations.some((a) => a.startsWith('::warning file=agents/billing.agent-card.json,')), docs.stdout);
    const score = docs.outputs.score!;
    assert.ok(Number(score) > 0, score);
    // agents/ holds billing.json only: not a name searched for.
    const unnamed = await runAction({ files: '.well-known/agent-card.json agents/', 'fail-on': 'never' }, { '.well-known/agent-card.json': warnedCard, 'agents/billing.json': warnedCard });
    assert.equal(unnamed.code, 2, unnamed.stdout);
    assert.ok(unnamed.annotations.some((a) => a.startsWith('::error file=agents/,title=input.unreadable::no agent card under agents/') && a.includes("--pattern '*.json'")), unnamed.stdout);
    assert.match(unnamed.annotations.at(-1)!, /^::error title=cardgate::1 card checked: 1 input could not be checked; /);
    assert.deepEqual([unnamed.outputs.valid, unnamed.outputs.score], ['false', score], 'the one card checked scored; the directory has no score');
    const nothing = await runAction({ files: 'agents/', 'fail-on': 'never' }, { 'agents/billing.json': warnedCard });
    assert.equal(nothing.code, 2, nothing.stdout);
    // The input that could not be checked is its one error (its annotation); no card, so no score.
    assert.deepEqual([nothing.outputs.valid, nothing.outputs.errors, nothing.outputs.warnings, nothing.outputs.score], ['false', '1', '0', ''], 'nothing checked: no score');
  });

  it("a directory search finds the ADK's agent_card.json; the patterns input replaces the names searched for", async () => {
    const adk = await runAction({ files: 'adk', format: 'github' });
    assert.equal(adk.code, 0, adk.stdout);
    assert.ok(adk.annotations.some((a) => a.startsWith('::warning file=adk/agent_card.json,line=12,col=58,')), adk.stdout);
    const own = await runAction({ files: '.', patterns: 'x.agent-card.json\nnot-json.json', 'fail-on': 'never' });
    assert.equal(own.code, 2, 'not-json.json was searched for and could not be checked');
    const files = new Set(own.annotations.map((a) => /file=([^,]+)/.exec(a)?.[1]).filter(Boolean));
    assert.deepEqual([...files].sort(), ['cards/broken/x.agent-card.json', 'other/not-json.json']);
    const escape = await runAction({ patterns: '../**/*.json' });
    assert.equal(escape.code, 2);
    assert.match(escape.annotations[0]!, /^::error title=cardgate::patterns: a pattern names files inside the directory searched/);
  });

  describe('with a cardgate server (server-url)', () => {
    let server: RunningServer;
    before(async () => {
      server = await startServer({ env: { CARDGATE_VALIDATION_WORKERS: '0' } });
    });
    after(() => server?.stop());

    it('posts each card to /v1/validate and places the server\'s findings in the file', async () => {
      const r = await runAction({ files: 'cards', 'server-url': `${server.url}/` });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.ok(r.annotations.some((a) => a.startsWith('::warning file=cards/.well-known/agent-card.json,line=12,col=58,')), r.stdout);
      assert.ok(r.annotations.some((a) => a.startsWith('::error file=cards/broken/x.agent-card.json,line=4,col=13,')), r.stdout);
      const offline = await runAction({ files: 'cards' });
      // The same verdict as offline; the server kept each card's report besides.
      const { 'report-url': reportUrls, ...verdict } = r.outputs;
      const { 'report-url': none, ...offlineVerdict } = offline.outputs;
      assert.deepEqual(verdict, offlineVerdict, 'the same verdict as offline');
      assert.equal(none, '');
      assert.equal(reportUrls!.split('\n').length, 2, reportUrls);
      const unknownKey = await runAction({ files: 'cards/.well-known/agent-card.json', 'server-url': server.url, 'api-key': 'cardgate_nope' });
      assert.equal(unknownKey.code, 2);
      assert.match(unknownKey.stdout, /v1\/validate answered HTTP 401/);
    });

    it('past the keyless daily limit, the refusal says what to change: a key, CARDGATE_LIMIT_ANONYMOUS or --sidecar', async () => {
      await awaitWindowRoom(DAY_MS, 60_000); // the runs counted must share a UTC day
      let refused: Awaited<ReturnType<typeof runAction>> | undefined;
      // Two cards a run and 5 keyless validations a day: the third run is refused at the latest.
      for (let run = 0; run < 3 && !refused; run++) {
        const r = await runAction({ files: 'cards', 'server-url': server.url });
        if (r.code === 2) refused = r;
      }
      assert.ok(refused, 'no run was refused');
      assert.match(refused.stdout, /answered HTTP 403: daily limit of 5 validations without an API key reached: .*it resets in .*, at 00:00 UTC\. To go on: .*CARDGATE_LIMIT_ANONYMOUS.*cardgate serve --sidecar/);
    });
  });

  describe('gating a pull request on its base branch (baseline, with a key)', () => {
    let server: RunningServer;
    before(async () => {
      server = await startServer({ env: { CARDGATE_VALIDATION_WORKERS: '0', CARDGATE_LIMIT_PRO: '-1' } });
    });
    after(() => server?.stop());

    it('the step fails only when a card regresses against the report of its base branch', async () => {
      const { key } = await accountWithKey(server.url, 'action');
      const common = { files: 'cards/broken/x.agent-card.json', 'server-url': server.url, 'api-key': key };
      const onMain = await runAction({ ...common, branch: 'main' });
      assert.equal(onMain.code, 1, 'without a baseline: the card\'s errors fail the step');
      const same = await runAction({ ...common, baseline: 'branch:main', branch: 'feature/a' });
      assert.equal(same.code, 0, same.stdout);
      assert.equal(same.outputs.regressions, '0');
      assert.equal(same.outputs.valid, 'false', 'the card keeps its own verdict');
      const worse = invalidCard.replace('"version": "1"', '"version": 1');
      assert.notEqual(worse, invalidCard);
      const regressed = await runAction({ ...common, baseline: 'branch:main', branch: 'feature/b' }, { 'cards/broken/x.agent-card.json': worse });
      assert.equal(regressed.code, 1, regressed.stdout);
      assert.equal(regressed.outputs.regressions, '1');
      assert.match(regressed.stdout, /1 card regresses against branch:main/);
      // The gate wherever it is read: the log, the step summary, the outputs; each address answers.
      const reportUrl = regressed.outputs['report-url']!;
      const diffUrl = regressed.outputs['diff-url']!;
      assert.match(reportUrl, new RegExp(`^${server.url}/reports/rpt_\\w+$`));
      const mainReport = new URL(onMain.outputs['report-url']!).pathname.split('/').at(-1)!;
      assert.equal(diffUrl, `${server.url}/reports/${mainReport}/diff/${reportUrl.split('/').at(-1)}`, 'the diff from the base branch\'s report to this one');
      const logLine = `cardgate: cards/broken/x.agent-card.json: failed against branch:main (${mainReport}): 1 new error, 0 new warnings, 0 fixed, score ±0; report ${reportUrl}; what changed ${diffUrl}`;
      assert.ok(regressed.stdout.split('\n').includes(logLine), regressed.stdout);
      assert.match(regressed.summary, /### cardgate regression gate \(against branch:main\)/);
      assert.ok(regressed.summary.includes(`| \`cards/broken/x.agent-card.json\` | **failed** | 1 | 0 | 0 | ±0 | [\`${mainReport}\`](${server.url}/reports/${mainReport}) | [\`${reportUrl.split('/').at(-1)}\`](${reportUrl}) | [diff](${diffUrl}) |`), regressed.summary);
      for (const url of [reportUrl, diffUrl]) assert.equal((await fetch(url, { headers: { accept: 'text/html' } })).status, 200, url);
      assert.equal(same.outputs['diff-url']!.split('/diff/')[0], `${server.url}/reports/${mainReport}`);
      assert.match(onMain.stdout, new RegExp(`^cardgate: cards/broken/x\\.agent-card\\.json: report ${onMain.outputs['report-url']}$`, 'm'), 'without a baseline: the report');
      assert.equal(onMain.outputs['diff-url'], '');
      assert.equal(regressed.outputs['breaking-changes'], '0');
      // fail-on breaking: the new error passes; a skill removed from the card fails, with an annotation.
      const newErrorOnly = await runAction({ ...common, baseline: 'branch:main', branch: 'feature/c', 'fail-on': 'breaking' }, { 'cards/broken/x.agent-card.json': worse });
      assert.equal(newErrorOnly.code, 0, newErrorOnly.stdout);
      const card = JSON.parse(invalidCard) as { skills?: unknown[] };
      assert.ok((card.skills ?? []).length > 0, 'the card has a skill to remove');
      const shrunk = JSON.stringify({ ...card, skills: [] }, null, 2);
      const broke = await runAction({ ...common, baseline: 'branch:main', branch: 'feature/d', 'fail-on': 'breaking' }, { 'cards/broken/x.agent-card.json': shrunk });
      assert.equal(broke.code, 1, broke.stdout);
      assert.equal(broke.outputs['breaking-changes'], '1');
      assert.ok(broke.annotations.some((a) => /^::warning file=cards\/broken\/x\.agent-card\.json,title=cardgate::1 breaking change against rpt_/.test(a)), broke.stdout);
      assert.match(broke.stdout, /^cardgate: cards\/broken\/x\.agent-card\.json: failed against branch:main \(rpt_\w+\): \d+ new errors?, \d+ new warnings?, \d+ fixed, 1 breaking change, score \S+; report /m, 'the log line names the breaking change');
      assert.match(broke.summary, /\| \*\*failed\*\* \(1 breaking change\) \|/, 'and so does the summary');
      assert.match((await runAction({ ...common, 'fail-on': 'breaking' })).stdout, /fail-on must be one of error, warning, never, not "breaking"/, 'breaking needs a baseline');
      const noKey = await runAction({ files: 'cards', 'server-url': server.url, baseline: 'branch:main' });
      assert.equal(noKey.code, 2);
      assert.match(noKey.stdout, /baseline needs server-url and api-key/);
      const noBase = await runAction({ ...common, baseline: 'branch:never-validated', 'baseline-missing': 'fail' });
      assert.equal(noBase.code, 2, 'baseline-missing fail: a baseline the server does not have, the card cannot be checked');
      assert.match(noBase.stdout, /options\.baseline/);
    });

    it('a pull request before its base branch has a report: no gate, the cards judged by their findings and said so; the next run after main\'s gates', async () => {
      const { key } = await accountWithKey(server.url, 'action-first');
      const common = { 'server-url': server.url, 'api-key': key, baseline: 'branch:main' };
      const warned = await runAction({ ...common, files: 'cards/.well-known/agent-card.json', branch: 'feature/first' });
      assert.equal(warned.code, 0, `a valid card with warnings passes as without a gate: ${warned.stdout}`);
      assert.equal(warned.outputs.regressions, '0');
      assert.equal(warned.outputs['diff-url'], '');
      const reportUrl = warned.outputs['report-url']!;
      const line = warned.stdout.split('\n').find((l) => l.startsWith('cardgate: cards/.well-known/agent-card.json: '));
      assert.ok(line, warned.stdout);
      assert.match(line, /^cardgate: cards\/\.well-known\/agent-card\.json: no gate ran: the agent acme\/agents\/cards\/\.well-known\/agent-card\.json has no report of branch:main yet \(the server: this agent has no report of branch "main": .*\), so the card was validated without a baseline and judged by its findings as without a gate \(fail-on: error\); .*once branch:main has a report of this agent the next run gates it; report /);
      assert.ok(line.endsWith(`; report ${reportUrl}`), line);
      assert.ok(warned.annotations.some((a) => a.startsWith('::notice file=cards/.well-known/agent-card.json,title=cardgate::no gate ran: ')), warned.stdout);
      assert.match(warned.summary, /\| `cards\/\.well-known\/agent-card\.json` \| no gate: no baseline yet \|/);
      assert.match(warned.summary, /\*\*No gate ran\*\* for 1 card:\n\n- `cards\/\.well-known\/agent-card\.json`: no gate ran: /);
      const report = await fetch(reportUrl, { headers: { accept: 'application/json' } }).then((r) => r.json());
      assert.equal(report.result.agent.branch, 'feature/first', 'still keyed: the report joined the agent\'s history on its branch');
      assert.equal(report.result.baseline, undefined);
      // Judged as without a gate: the invalid card's errors fail the step (fail-on error), and fail-on never passes it.
      const invalid = await runAction({ ...common, files: 'cards/broken/x.agent-card.json', branch: 'feature/first' });
      assert.equal(invalid.code, 1, invalid.stdout);
      assert.match(invalid.annotations.at(-1)!, /^::error title=cardgate::1 card checked: the card with no baseline yet fails \(fail-on: error\); \d+ errors?, \d+ warnings?$/);
      assert.equal((await runAction({ ...common, files: 'cards/broken/x.agent-card.json', branch: 'feature/first', 'fail-on': 'never' })).code, 0);
      assert.equal((await runAction({ ...common, files: 'cards/.well-known/agent-card.json', branch: 'feature/first', 'max-warnings': '1' })).code, 1, 'max-warnings as without a gate');
      // The old strict behaviour, on request; a value other than skip or fail is named.
      const strict = await runAction({ ...common, files: 'cards/.well-known/agent-card.json', branch: 'feature/first', 'baseline-missing': 'fail' });
      assert.equal(strict.code, 2, strict.stdout);
      assert.match(strict.stdout, /answered HTTP 400: options\.baseline: this agent has no report of branch "main"/);
      assert.deepEqual((await runAction({ ...common, 'baseline-missing': 'maybe' })).annotations, ['::error title=cardgate::baseline-missing must be skip or fail, not "maybe"']);
      // Once main has a report of the agent, the next run gates.
      assert.equal((await runAction({ 'server-url': server.url, 'api-key': key, files: 'cards/.well-known/agent-card.json', branch: 'main' })).code, 0);
      const gated = await runAction({ ...common, files: 'cards/.well-known/agent-card.json', branch: 'feature/first' });
      assert.equal(gated.code, 0, gated.stdout);
      assert.match(gated.stdout, /^cardgate: cards\/\.well-known\/agent-card\.json: passed against branch:main \(rpt_\w+\): 0 new errors, /m);
      assert.doesNotMatch(gated.stdout + gated.summary, /no gate ran/i);
    });

    it('adoption day, as a runner runs it: a pull request first (baseline missing, validated again without it), then the push to main: the agent\'s default branch is main and its badge shows main\'s', async () => {
      const { key } = await accountWithKey(server.url, 'action-adoption');
      /** The event payload a runner writes (GITHUB_EVENT_PATH): its repository names the default branch. */
      const eventFile = (event: unknown) => {
        const file = path.join(newDir(), 'event.json');
        writeFileSync(file, JSON.stringify(event));
        return file;
      };
      const repository = { full_name: 'acme/agents', default_branch: 'main' };
      const card = 'cards/.well-known/agent-card.json';
      const common = { 'server-url': server.url, 'api-key': key, files: card };
      const pr = await runAction({ ...common, baseline: 'branch:main' }, { [card]: invalidCard }, {
        GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: eventFile({ pull_request: { number: 1 }, repository }), GITHUB_REF_NAME: '1/merge', GITHUB_HEAD_REF: 'feature-x', GITHUB_BASE_REF: 'main',
      });
      assert.equal(pr.code, 1, `no baseline yet: judged by its findings: ${pr.stdout}`);
      assert.match(pr.stdout, /no gate ran/);
      const prReport = await fetch(pr.outputs['report-url']!, { headers: { accept: 'application/json' } }).then((r) => r.json());
      assert.equal(prReport.result.agent.branch, 'feature-x');
      const agentOf = async () => {
        const res = await fetch(`${server.url}/agents/${prReport.result.agent.id}`, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } });
        assert.equal(res.status, 200);
        return (await res.json()) as { agent: { default_branch: string }; badge_url: string };
      };
      assert.equal((await agentOf()).agent.default_branch, 'main', 'the pull request\'s branch is not the default');
      const push = await runAction(common, {}, { GITHUB_EVENT_NAME: 'push', GITHUB_EVENT_PATH: eventFile({ ref: 'refs/heads/main', repository }), GITHUB_REF_NAME: 'main' });
      assert.equal(push.code, 0, push.stdout);
      const { agent, badge_url } = await agentOf();
      assert.equal(agent.default_branch, 'main');
      const badge = await (await fetch(badge_url.replace(/^https?:\/\/[^/]+/, server.url))).text();
      assert.match(badge, /valid/);
      assert.doesNotMatch(badge, /invalid/, 'main\'s report, not the failing pull request\'s');
      // Without a payload, a pull request's base branch (GITHUB_BASE_REF) says it.
      const bare = await runAction({ ...common, agent: 'acme/bare', baseline: 'branch:trunk' }, {}, { GITHUB_REF_NAME: '2/merge', GITHUB_HEAD_REF: 'feature-y', GITHUB_BASE_REF: 'trunk' });
      assert.equal(bare.code, 0, bare.stdout);
      const bareReport = await fetch(bare.outputs['report-url']!, { headers: { accept: 'application/json' } }).then((r) => r.json());
      const bareAgent = await fetch(`${server.url}/agents/${bareReport.result.agent.id}`, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } }).then((r) => r.json());
      assert.equal(bareAgent.agent.default_branch, 'trunk');
    });

    it('an event payload that is /dev/zero, past its bound, not JSON, or names a branch the server would refuse neither hangs nor fails the step: no default branch is sent, or the base branch', async () => {
      const { key } = await accountWithKey(server.url, 'action-hostile-event');
      const card = 'cards/.well-known/agent-card.json';
      const dir = newDir();
      const huge = path.join(dir, 'huge.json');
      writeFileSync(huge, `{"repository":{"default_branch":"main"},"pad":"${'x'.repeat(25 * 1024 * 1024)}"}`);
      const notJson = path.join(dir, 'not.json');
      writeFileSync(notJson, '{"repository":');
      const longName = path.join(dir, 'long.json');
      writeFileSync(longName, JSON.stringify({ repository: { default_branch: 'b'.repeat(201) } }));
      const cases: Array<[string, Record<string, string>, string | null]> = [
        ['/dev/zero', { GITHUB_EVENT_PATH: '/dev/zero' }, null],
        ['a payload over 25 MB', { GITHUB_EVENT_PATH: huge }, null],
        ['not JSON, with a base branch', { GITHUB_EVENT_PATH: notJson, GITHUB_BASE_REF: 'trunk' }, 'trunk'],
        ['a default branch of 201 characters', { GITHUB_EVENT_PATH: longName }, null],
        ['a base branch with a control character', { GITHUB_BASE_REF: 'tr\u0001unk' }, null],
      ];
      for (const [what, env, expected] of cases) {
        const run = await runAction({ 'server-url': server.url, 'api-key': key, files: card, agent: `acme/${what.replace(/\W+/g, '-')}` }, {}, { GITHUB_REF_NAME: 'feature-z', ...env });
        assert.equal(run.code, 0, `${what}: ${run.stdout}`);
        const report = await fetch(run.outputs['report-url']!, { headers: { accept: 'application/json' } }).then((r) => r.json());
        const agent = await fetch(`${server.url}/agents/${report.result.agent.id}`, { headers: { accept: 'application/json', authorization: `Bearer ${key}` } }).then((r) => r.json());
        // Without a default sent, the agent takes the first branch it is seen on (the run's own).
        assert.equal(agent.agent.default_branch, expected ?? 'feature-z', what);
      }
    });

    it('agent names the card\'s agent (one card: the name a monitor of it is given); several cards with one name are refused before anything is sent', async () => {
      const { key } = await accountWithKey(server.url, 'action-agent');
      const common = { 'server-url': server.url, 'api-key': key, agent: 'acme/billing-agent' };
      const one = await runAction({ ...common, files: 'cards/.well-known/agent-card.json', branch: 'main' });
      assert.equal(one.code, 0, one.stdout);
      const report = await fetch(one.outputs['report-url']!, { headers: { accept: 'application/json' } }).then((r) => r.json());
      assert.deepEqual([report.result.agent.name, report.result.agent.branch], ['acme/billing-agent', 'main']);
      const several = await runAction({ ...common, files: 'cards' });
      assert.equal(several.code, 2);
      assert.match(several.stdout, /agent names one card's agent, and files holds 2 cards/);
      const keyless = await runAction({ files: 'cards/.well-known/agent-card.json', agent: 'acme/billing-agent' });
      assert.equal(keyless.code, 2);
      assert.match(keyless.stdout, /agent needs server-url and api-key/);
    });

    it('a card that joins no agent (its account at agents.maxPerAccount) is a warning on the base branch, not silence', async () => {
      const full = await startServer({ env: { CARDGATE_VALIDATION_WORKERS: '0', CARDGATE_LIMIT_PRO: '-1', CARDGATE_AGENTS_MAX_PER_ACCOUNT: '1' } });
      try {
        const { key } = await accountWithKey(full.url, 'action-full');
        const common = { files: 'cards/broken/x.agent-card.json', 'server-url': full.url, 'api-key': key, branch: 'main' };
        const first = await runAction(common);
        assert.ok(!first.annotations.some((a) => a.includes('joined no agent')), `the account's one agent: ${first.stdout}`);
        const second = await runAction({ ...common, files: 'cards/.well-known/agent-card.json' });
        assert.equal(second.code, 0, `a bookkeeping bound never fails the step: ${second.stdout}`);
        assert.ok(second.annotations.some((a) => /^::warning file=cards\/\.well-known\/agent-card\.json,title=cardgate::joined no agent: .*agents\.maxPerAccount/.test(a)), second.stdout);
      } finally {
        await full.stop();
      }
    });
  });

  describe('with a sidecar server (cardgate serve --sidecar)', () => {
    let server: RunningServer;
    before(async () => {
      server = await startServer({ args: ['--sidecar'], env: { CARDGATE_VALIDATION_WORKERS: '0' } });
    });
    after(() => server?.stop());

    it('checks every card of every run, keyless, past the anonymous limit', async () => {
      for (let run = 1; run <= 4; run++) {
        const r = await runAction({ files: 'cards', 'server-url': server.url });
        assert.equal(r.code, 1, `run ${run}: ${r.stdout}`); // the invalid card fails the step; nothing is refused
        assert.ok(!/answered HTTP/.test(r.stdout), r.stdout);
        assert.ok(r.annotations.some((a) => a.startsWith('::error file=cards/broken/x.agent-card.json,line=4,col=13,')), r.stdout);
        // Keyless too, the server keeps each card's report: its address in the log, the summary and the output.
        const urls = r.outputs['report-url']!.split('\n');
        assert.equal(urls.length, 2, r.outputs['report-url']);
        for (const url of urls) {
          assert.match(url, new RegExp(`^${server.url}/reports/rpt_\\w+$`));
          assert.ok(r.stdout.includes(` report ${url}\n`) && r.summary.includes(`(${url})`), url);
        }
        assert.equal(r.outputs['diff-url'], '');
      }
    });
  });
});
