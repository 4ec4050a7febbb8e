/**
 * The Dockerfile and the systemd unit, checked without Docker or systemd running: every path the
 * image copies exists (from the repository, or from what its build stage produces), the settings
 * they pass are ones the configuration accepts, and the unit has the keys docs/operations.md relies on
 * (and passes `systemd-analyze verify` where that is installed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { skipOutsideCi } from '../support/checks.ts';
import { tempDirFactory } from '../support/temp.ts';

const root = new URL('../..', import.meta.url).pathname;
const tempDir = tempDirFactory('cardgate-deploy-');

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  base: string;
  name?: string;
  workdir: string;
  instructions: Instruction[];
}

/** Instructions by stage, continuation lines joined, comments dropped. */
const readDockerfile = (text: string): Stage[] => {
  const stages: Stage[] = [];
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    if (!m || line.trimStart().startsWith('#')) continue;
    const [, keyword, args] = m as unknown as [string, string, string];
    if (keyword === 'FROM') {
      const [base, as, name] = args.trim().split(/\s+/);
      stages.push({ base: base!, name: as?.toUpperCase() === 'AS' ? name : undefined, workdir: '/', instructions: [] });
      continue;
    }
    const stage = stages.at(-1)!;
    if (keyword === 'WORKDIR') stage.workdir = args.trim();
    stage.instructions.push({ keyword, args: args.trim() });
  }
  return stages;
};

/** `KEY=value` pairs of an ENV instruction or an Environment= line (no quoting used in ours). */
const pairs = (text: string): Record<string, string> =>
  Object.fromEntries(text.trim().split(/\s+/).map((pair) => pair.split('=', 2) as [string, string]));

const dockerfile = readDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const [build, ci, runtime] = dockerfile;

test('Dockerfile: three stages, the SEA built with npm ci and build/build.mjs, the default (last) on a distroless base', () => {
  assert.deepEqual(dockerfile.map((stage) => stage.name), ['build', 'ci', undefined]);
  const runs = build!.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
  assert.match(runs, /npm ci/);
  assert.match(runs, /node build\/build\.mjs/);
  assert.match(runtime!.base, /^gcr\.io\/distroless\//);
});

test('Dockerfile: every COPY source exists in the repository or is produced by the build stage', () => {
  const buildScript = readFileSync(join(root, 'build/build.mjs'), 'utf8');
  // What build/build.mjs writes: build/out/cardgate (the SEA), unless --out names another dir (the benches' variants).
  assert.match(buildScript, /const out = flags\.out \? resolve\(flags\.out\) : join\(root, 'build\/out'\)/);
  assert.match(buildScript, /const binary = join\(out, 'cardgate'\)/);
  const produced = new Set([`${build!.workdir}/build/out/cardgate`]);
  const made = build!.instructions.filter((i) => i.keyword === 'RUN').flatMap((i) => [...i.args.matchAll(/mkdir -p (\S+)/g)].map((m) => m[1]!));
  const copies = dockerfile.flatMap((stage) => stage.instructions.filter((i) => i.keyword === 'COPY'));
  assert.ok(copies.length >= 3);
  for (const copy of copies) {
    const words = copy.args.split(/\s+/);
    const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
    const sources = words.filter((w) => !w.startsWith('--')).slice(0, -1);
    assert.ok(sources.length > 0, copy.args);
    for (const source of sources) {
      if (from === undefined) assert.ok(existsSync(join(root, source)), `${source} is in the repository`);
      else {
        assert.equal(from, build!.name);
        assert.ok(produced.has(source) || made.includes(source), `${source} is produced by the build stage`);
      }
    }
  }
  const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
  for (const entry of ['node_modules', 'build/out', '.git']) assert.ok(ignored.includes(entry), `.dockerignore leaves out ${entry}`);
});

test('Dockerfile: the CI target is the same binary on a Debian 12 shell image, its entrypoint the script that runs cardgate for a service\'s command', () => {
  assert.match(ci!.base, /^debian:bookworm/, 'the glibc of the build stage (node:20-bookworm)');
  const at = (keyword: string) => ci!.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
  assert.ok(at('COPY').includes('--from=build /src/build/out/cardgate /usr/local/bin/cardgate'));
  assert.ok(at('COPY').includes('ci/image/entrypoint.sh /usr/local/bin/cardgate-entrypoint'));
  assert.deepEqual(at('ENTRYPOINT').map((args) => JSON.parse(args)), [['/usr/local/bin/cardgate-entrypoint']]);
  assert.deepEqual(at('CMD').map((args) => JSON.parse(args)), [['serve']]);
  const config = loadConfig({ env: Object.assign({}, ...at('ENV').map(pairs)) as Record<string, string>, cwd: tempDir() });
  assert.equal(config.host, '0.0.0.0');
  assert.deepEqual(at('EXPOSE'), [String(config.port)]);
});

test('Dockerfile: non-root, a data volume, the port exposed, settings the configuration accepts, the health check by the binary itself', () => {
  const at = (keyword: string) => runtime!.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
  const [user] = at('USER');
  assert.ok(user && !/^(0|root)\b/.test(user), `runs as a non-root user (${user})`);
  const env = Object.assign({}, ...at('ENV').map(pairs)) as Record<string, string>;
  const config = loadConfig({ env, cwd: tempDir() });
  assert.equal(config.host, '0.0.0.0');
  assert.deepEqual(at('EXPOSE'), [String(config.port)]);
  assert.deepEqual(at('VOLUME'), [JSON.stringify([config.dataDir])]);
  const [entrypoint] = at('ENTRYPOINT').map((args) => JSON.parse(args) as string[]);
  assert.deepEqual(at('CMD').map((args) => JSON.parse(args)), [['serve']]);
  const [healthcheck] = at('HEALTHCHECK');
  assert.deepEqual(JSON.parse(/ CMD (\[.*\])$/.exec(healthcheck ?? '')?.[1] ?? 'null'), [...entrypoint!, 'healthcheck'], healthcheck);
  const main = readFileSync(join(root, 'src/main.ts'), 'utf8');
  assert.match(main, /healthcheck: async \(\) =>/, 'the binary has the healthcheck subcommand');
});

const unitText = readFileSync(join(root, 'deploy/cardgate.service'), 'utf8');

/** Section → key → values (a key may repeat). */
const readUnit = (text: string): Record<string, Record<string, string[]>> => {
  const sections: Record<string, Record<string, string[]>> = {};
  let section: Record<string, string[]> | undefined;
  for (const line of text.split('\n')) {
    const header = /^\[(\w+)\]$/.exec(line.trim());
    if (header) sections[header[1]!] = section = {};
    const entry = /^(\w+)=(.*)$/.exec(line);
    if (entry && section) (section[entry[1]!] ??= []).push(entry[2]!);
  }
  return sections;
};

test('systemd unit: the keys docs/operations.md relies on, and settings the configuration accepts', () => {
  const unit = readUnit(unitText);
  const service = unit.Service!;
  const one = (key: string) => {
    assert.equal(service[key]?.length, 1, key);
    return service[key]![0]!;
  };
  assert.match(one('ExecStart'), /^\/usr\/local\/bin\/cardgate serve$/);
  assert.equal(one('DynamicUser'), 'yes');
  assert.equal(one('StateDirectory'), 'cardgate');
  assert.equal(one('StateDirectoryMode'), '0700');
  assert.equal(one('Restart'), 'on-failure');
  assert.equal(one('EnvironmentFile'), '-/etc/cardgate/cardgate.env');
  assert.equal(one('KillSignal'), 'SIGTERM');
  for (const [key, value] of Object.entries({ NoNewPrivileges: 'yes', ProtectSystem: 'strict', ProtectHome: 'yes', PrivateTmp: 'yes', PrivateDevices: 'yes' })) {
    assert.equal(one(key), value, key);
  }
  assert.equal(unit.Install?.WantedBy?.[0], 'multi-user.target');

  const config = loadConfig({ env: pairs(one('Environment')), cwd: tempDir() });
  assert.equal(config.dataDir, '/var/lib/cardgate', 'the data dir is the StateDirectory');
  const stopSeconds = Number(/^(\d+)s$/.exec(one('TimeoutStopSec'))?.[1]);
  assert.ok(stopSeconds * 1000 > config.shutdown.graceMs, 'systemd waits longer than the graceful shutdown');
});

test('systemd unit: systemd-analyze verify finds nothing to say (where it is installed)', (t) => {
  if (spawnSync('systemd-analyze', ['--version']).error) return skipOutsideCi(t, 'systemd-analyze is not installed (Debian package systemd; .ci/run installs it)');
  // Verified with an executable that exists here in place of the installed binary.
  const copy = join(tempDir(), 'cardgate.service');
  writeFileSync(copy, unitText.replaceAll('/usr/local/bin/cardgate', process.execPath));
  const verified = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8' });
  assert.equal(verified.status, 0, verified.stderr);
  assert.equal(`${verified.stdout}${verified.stderr}`.trim(), '');
});
