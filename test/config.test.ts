import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, configSchema, loadConfig, parseConfig, resolveUrls } from '../src/config.ts';
import { tempDirFactory } from './support/temp.ts';
import { configSettings } from '../src/config/schema.ts';
import type { Members } from '../src/config/setting.ts';

const root = new URL('..', import.meta.url).pathname;
const emptyDir = tempDirFactory('cardgate-config-');

test('defaults: 127.0.0.1:8080, ./data, documented limits', () => {
  const config = loadConfig({ env: {}, cwd: emptyDir() });
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8080);
  assert.equal(config.dataDir, './data');
  assert.deepEqual(config.limits.daily, { anonymous: 5, free: 10, pro: -1, team: -1 });
  assert.equal(config.limits.webhookPerIpPerMinute, 100);
  assert.equal(config.limits.webhookGlobalPerHour, 10000);
  assert.equal(config.validation.timeoutMs, 30000);
  assert.equal(config.webhooks.callbackTimeoutMs, 10000);
  assert.equal(config.http.maxBodyBytes, 1024 * 1024);
  assert.equal(config.http.maxBatchBodyBytes, 10 * 1024 * 1024);
  assert.equal(config.batch.maxCards, 100);
  assert.equal(config.reports.retentionDays, 30);
  assert.deepEqual(resolveUrls(config), { publicUrl: 'http://127.0.0.1:8080', reportsUrl: 'http://127.0.0.1:8080' });
});

test('config.example.json parses and lists every setting with its default', () => {
  const example = JSON.parse(readFileSync(join(root, 'config.example.json'), 'utf8'));
  const parsed = parseConfig(example);
  const defaults = configSchema.parse({});
  // Every default appears in the example with the same value (optional settings are shown unset or with a sample).
  const flatten = (o: unknown, prefix = ''): Record<string, unknown> =>
    typeof o === 'object' && o !== null && !Array.isArray(o)
      ? Object.assign({}, ...Object.entries(o).map(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k)))
      : { [prefix]: o };
  const flatDefaults = flatten(defaults);
  const flatExample = flatten(example);
  for (const [path, value] of Object.entries(flatDefaults)) {
    assert.ok(path in flatExample, `config.example.json lacks ${path}`);
    assert.deepEqual(flatten(parsed)[path], value, `${path} differs from its default`);
  }
  // Optional settings (no default) are listed too, as null: those the declarations leave unset, the
  // ones published so far among them (a new one needs no edit here).
  const optionalOf = (members: Members, prefix = ''): string[] =>
    Object.entries(members).flatMap(([key, member]) => {
      const path = prefix ? `${prefix}.${key}` : key;
      if (member.kind === 'section') return optionalOf(member.members, path);
      return member.kind === 'group' || member.presence === 'unset' ? [path] : [];
    });
  const optional = optionalOf(configSettings);
  for (const published of ['publicUrl', 'reportsUrl', 'adminToken', 'webhooks.signingSecret', 'validation.workers', 'validation.maxWorkersPerCaller', 'store.databaseUrl', 'rules.ruleset', 'auth.oidc', 'keys.maxLifetimeDays']) {
    assert.ok(optional.includes(published), `${published} is no longer an optional setting`);
  }
  for (const path of optional) {
    assert.equal(flatExample[path], null, `config.example.json should list ${path} as null`);
  }
  assert.equal(Object.keys(flatExample).length, Object.keys(flatDefaults).length + optional.length, 'the example lists a setting the schema lacks');
});

test('precedence: flags > env > file > defaults', () => {
  const dir = emptyDir();
  writeFileSync(join(dir, 'cardgate.json'), JSON.stringify({ port: 1111, host: '0.0.0.0', dataDir: '/file' }));
  const fromFile = loadConfig({ env: {}, cwd: dir });
  assert.equal(fromFile.port, 1111);
  const fromEnv = loadConfig({ env: { CARDGATE_PORT: '2222', CARDGATE_DATA_DIR: '/env' }, cwd: dir });
  assert.equal(fromEnv.port, 2222);
  assert.equal(fromEnv.host, '0.0.0.0');
  assert.equal(fromEnv.dataDir, '/env');
  const fromFlags = loadConfig({ env: { CARDGATE_PORT: '2222' }, flags: { port: '3333' }, cwd: dir });
  assert.equal(fromFlags.port, 3333);
  assert.equal(fromFlags.dataDir, '/file');
});

test('--config PATH beats ./cardgate.json; nested env values and lists', () => {
  const dir = emptyDir();
  writeFileSync(join(dir, 'cardgate.json'), JSON.stringify({ port: 1111 }));
  const other = join(emptyDir(), 'other.json');
  writeFileSync(other, JSON.stringify({ port: 4444, limits: { daily: { free: 50 } } }));
  const config = loadConfig({
    env: { CARDGATE_TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16', CARDGATE_LIMIT_ANONYMOUS: '0' },
    configPath: other,
    cwd: dir,
  });
  assert.equal(config.port, 4444);
  assert.equal(config.limits.daily.free, 50);
  assert.equal(config.limits.daily.anonymous, 0);
  assert.deepEqual(config.limits.trustedProxies, ['10.0.0.1', '192.168.0.0/16']);
});

test('a bad value names the field path and the reason', () => {
  const cases: Array<[object, RegExp]> = [
    [{ port: 70000 }, /port: .*65535/],
    [{ limits: { daily: { free: 'ten' } } }, /limits\.daily\.free: /],
    [{ publicUrl: 'ftp://x' }, /publicUrl: must be an absolute http\(s\) URL/],
    [{ webhooks: { signingSecret: 'secret' } }, /webhooks\.signingSecret: must look like whsec_/],
    [{ unknownSetting: true }, /unknownSetting|Unrecognized key/],
    [{ limits: { daily: { fre: 20 } } }, /limits\.daily: .*fre/],
    [{ webhooks: { allowedHost: ['loopback'] } }, /webhooks: .*allowedHost/],
    [{ agents: { maxPerAccount: 0 } }, /agents\.maxPerAccount: /],
    [{ agents: { maxPerAccount: 1e12 } }, /agents\.maxPerAccount: /],
    [{ agents: { maxPerAccount: 2.5 } }, /agents\.maxPerAccount: /],
  ];
  for (const [input, pattern] of cases) {
    assert.throws(() => parseConfig(input), (e: unknown) => e instanceof ConfigError && pattern.test(e.message));
  }
  assert.equal(loadConfig({ env: { CARDGATE_AGENTS_MAX_PER_ACCOUNT: '250' }, cwd: emptyDir() }).agents.maxPerAccount, 250);
  assert.throws(
    () => loadConfig({ env: { CARDGATE_AGENTS_MAX_PER_ACCOUNT: '-1' }, cwd: emptyDir() }),
    (e: unknown) => e instanceof ConfigError && /CARDGATE_AGENTS_MAX_PER_ACCOUNT \(agents\.maxPerAccount\): /.test(e.message),
  );
  assert.throws(
    () => loadConfig({ env: { CARDGATE_PORT: 'eighty' }, cwd: emptyDir() }),
    (e: unknown) => e instanceof ConfigError && /^ {2}CARDGATE_PORT \(port\): /m.test(e.message),
  );
});

test('the database: unset = the file store; CARDGATE_DATABASE_* set it; a bad URL is named by its path, never echoed', () => {
  assert.deepEqual(loadConfig({ env: {}, cwd: emptyDir() }).store, { poolSize: 10, statementTimeoutMs: 5000 });
  const env = { CARDGATE_DATABASE_URL: 'postgres://u:pw@db:5432/cardgate', CARDGATE_DATABASE_POOL_SIZE: '4', CARDGATE_DATABASE_STATEMENT_TIMEOUT_MS: '250' };
  assert.deepEqual(loadConfig({ env, cwd: emptyDir() }).store, { databaseUrl: 'postgres://u:pw@db:5432/cardgate', poolSize: 4, statementTimeoutMs: 250 });
  for (const databaseUrl of ['mysql://u:s3cret@db/x', 'postgres://', 'db:5432']) {
    assert.throws(
      () => parseConfig({ store: { databaseUrl } }),
      (e: unknown) => e instanceof ConfigError && /store\.databaseUrl: must be a postgres:\/\/ or postgresql:\/\/ URL/.test(e.message) && !e.message.includes('s3cret'),
    );
  }
  assert.throws(() => parseConfig({ store: { poolSize: 0 } }), /store\.poolSize: /);
});

test('an unreadable or non-JSON config file is a ConfigError', () => {
  const path = join(emptyDir(), 'bad.json');
  writeFileSync(path, '{ not json');
  assert.throws(() => loadConfig({ env: {}, configPath: path }), /not valid JSON/);
  assert.throws(() => loadConfig({ env: {}, configPath: join(emptyDir(), 'missing.json') }), /cannot read config file/);
  writeFileSync(path, '[1]');
  assert.throws(() => loadConfig({ env: {}, configPath: path }), /must hold a JSON object/);
});

test('mode: sidecar (env or file) makes keyless callers unlimited; with trusted proxies it is refused', () => {
  assert.equal(loadConfig({ env: {}, cwd: emptyDir() }).mode, 'service');
  const fromEnv = loadConfig({ env: { CARDGATE_MODE: 'sidecar', CARDGATE_LIMIT_ANONYMOUS: '5' }, cwd: emptyDir() });
  assert.equal(fromEnv.mode, 'sidecar');
  assert.deepEqual(fromEnv.limits.daily, { anonymous: -1, free: 10, pro: -1, team: -1 });
  const fromSwitch = loadConfig({ env: { CARDGATE_MODE: 'service' }, sidecar: true, cwd: emptyDir() });
  assert.equal(fromSwitch.limits.daily.anonymous, -1);
  assert.throws(() => parseConfig({ mode: 'sidecar', limits: { trustedProxies: ['10.0.0.1'] } }), (e: Error) => e instanceof ConfigError && /mode: sidecar mode .*refuses limits\.trustedProxies/.test(e.message));
  assert.throws(() => loadConfig({ env: { CARDGATE_MODE: 'side' }, cwd: emptyDir() }), ConfigError);
});

test('a bad environment variable or flag is named as it was written, not by the setting it sets', () => {
  const cwd = emptyDir();
  const problem = (sources: Parameters<typeof loadConfig>[0]) => {
    try {
      loadConfig({ cwd, env: {}, ...sources });
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.message;
    }
    assert.fail('no ConfigError');
  };
  assert.match(problem({ env: { CARDGATE_PORT: 'abc' } }), /^ {2}CARDGATE_PORT \(port\): /m);
  assert.match(problem({ env: { CARDGATE_TRUSTED_PROXIES: '10.0.0.1,10.0.0.300' } }), /^ {2}CARDGATE_TRUSTED_PROXIES \(limits\.trustedProxies\.1\): /m);
  assert.match(problem({ env: { CARDGATE_LIMIT_FREE: '-5' } }), /^ {2}CARDGATE_LIMIT_FREE \(limits\.daily\.free\): /m);
  assert.match(problem({ flags: { port: '99999' } }), /^ {2}--port \(port\): /m);
  assert.match(problem({ sidecar: true, env: { CARDGATE_TRUSTED_PROXIES: '10.0.0.1' } }), /^ {2}--sidecar \(mode\): sidecar mode/m);
  // The real command line (exit 2, the variable named) is checked in test/cli/serve.test.ts.
});

test('a config file\'s problems are placed by line and column: its JSON syntax, and a bad value', () => {
  const path = join(emptyDir(), 'cardgate.json');
  const problem = (text: string) => {
    writeFileSync(path, text);
    try {
      loadConfig({ env: {}, configPath: path });
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.message;
    }
    assert.fail('no ConfigError');
  };
  assert.match(problem('{\n  "port": 8080\n  "host": "0.0.0.0"\n}\n'), /is not valid JSON: .* at line 3, column 3$/);
  assert.match(problem('{\n  "port": 8080,\n}\n'), /is not valid JSON: .* at line 3, column 1$/);
  assert.match(problem('\uFEFF{\n  "limits": {\n    "daily": { "free": "ten" }\n  }\n}\n'), new RegExp(`^ {2}limits\\.daily\\.free \\(${path.replace(/[.]/g, '\\.')}:3:16\\): `, 'm'));
  // A value the environment overrides is named by the variable, not placed in the file.
  writeFileSync(path, '{ "port": 1 }');
  assert.throws(() => loadConfig({ env: { CARDGATE_PORT: 'x' }, configPath: path }), /^ {2}CARDGATE_PORT \(port\): /m);
});

test('a section left out, or a whole input that sets nothing, gets its defaults: what the schema makes of it, a copy of its own for each parse', () => {
  const sections = Object.entries(parseConfig({})).filter(([, value]) => typeof value === 'object').map(([name]) => name);
  const empty = Object.fromEntries(sections.map((name) => [name, name === 'limits' ? { daily: {} } : {}]));
  // Same values, same keys (an unset setting is absent in both), same order.
  for (const made of [parseConfig(empty), configSchema.parse({})]) {
    assert.deepEqual(made, parseConfig({}));
    assert.equal(JSON.stringify(made), JSON.stringify(parseConfig({})));
  }
  const first = parseConfig({});
  first.limits.trustedProxies.push('10.0.0.1');
  first.signatures.allowedAlgorithms.length = 0;
  assert.deepEqual(parseConfig({}).limits.trustedProxies, []);
  assert.ok(parseConfig({}).signatures.allowedAlgorithms.length > 0);
});
