/**
 * The whole configuration (its settings, each declared once: config/*.ts; its schema:
 * config/schema.ts). Sources, highest first:
 * command-line flags > CARDGATE_* environment > JSON file (--config PATH, else
 * ./cardgate.json when present) > defaults. A bad value is a ConfigError naming
 * the field path and the reason; main.ts turns it into exit code 2.
 */
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { ConfigError } from './lib/config-error.ts';
import { readTextFile } from './lib/read-file.ts';
import { describeSyntaxProblem, jsonSyntaxProblem, LineIndex } from './lib/text-position.ts';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { configFlags, envVars } from './config/env-vars.ts';
import type { SettingType } from './config/setting.ts';
import { configSchema, defaultConfig, type Config } from './config/schema.ts';

export { configSchema, type Config, type ConfigInput } from './config/schema.ts';

export { ConfigError };

/** Command-line flags of `serve` and the config path each sets. */
export { configFlags };

/** How a problem names the setting at `path` (as zod gives it); by default its dotted path. */
type NameSetting = (path: ReadonlyArray<PropertyKey>) => string;
const dottedPath = (path: ReadonlyArray<PropertyKey>): string => path.map(String).join('.');

const isEmptyObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;

/** Parses a config object; every problem is reported as `setting: reason`, the setting named by `nameOf`. */
export const parseConfig = (input: unknown, source = 'config', nameOf: NameSetting = (path) => dottedPath(path) || '(root)'): Config => {
  if (isEmptyObject(input)) return defaultConfig();
  const result = configSchema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => `  ${nameOf(i.path)}: ${i.message}`);
  throw new ConfigError(`invalid ${source}:\n${lines.join('\n')}`);
};

type Json = Record<string, unknown>;

const setPath = (target: Json, path: string[], value: unknown): void => {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Json;
  }
  node[path[path.length - 1]!] = value;
};


/** `value=role,value=role` as an object (a value holding `=` or `,` is set in the file instead). */
const mapOf = (raw: string): Record<string, string> =>
  Object.fromEntries(raw.split(',').map((pair) => pair.trim()).filter(Boolean).map((pair) => [pair.replace(/=[^=]*$/, '').trim(), /=([^=]*)$/.exec(pair)?.[1]?.trim() ?? '']));

const convert = (raw: string, type: SettingType): unknown => {
  if (type === 'map') return mapOf(raw);
  if (type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw; // zod reports the type error
  if (type === 'number') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw; // zod reports the type error
  if (type === 'list') return raw.split(',').map((s) => s.trim()).filter(Boolean);
  return raw;
};

export interface ConfigSources {
  /** Values of `configFlags`, as strings from the command line. */
  flags?: Record<string, string | undefined>;
  env?: Record<string, string | undefined>;
  /** The `--sidecar` switch: mode `sidecar`, above every other source. */
  sidecar?: boolean;
  /** Explicit --config path (must exist). */
  configPath?: string;
  /** Directory searched for cardgate.json when no --config is given. */
  cwd?: string;
}

/** A configuration is a few KiB; a file far beyond is not one (or is /dev/zero). */
const MAX_CONFIG_FILE_BYTES = 1 << 20;

/** The file's object and its text (to place a problem in it); the read drops a byte order mark. */
const readConfigFile = (path: string): { json: Json; text: string } => {
  const read = readTextFile(path, { maxBytes: MAX_CONFIG_FILE_BYTES, what: 'a configuration file' });
  if ('problem' in read) throw new ConfigError(`cannot read config file ${path}: ${read.problem}`);
  const text = read.text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${describeSyntaxProblem(jsonSyntaxProblem(text, e as SyntaxError))}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a JSON object`);
  }
  return { json: parsed as Json, text };
};

/**
 * Names a setting by where its value came from: the environment variable or flag that set it
 * (`CARDGATE_PORT (port)`), else its place in the file (`port (cardgate.json:3:11)`), else its path.
 */
const settingNamer = (setBy: Map<string, string>, file?: { path: string; text: string }): NameSetting => {
  const tree = file && parseTree(file.text);
  const lines = file && new LineIndex(file.text);
  return (path) => {
    const dotted = dottedPath(path) || '(root)';
    for (let length = path.length; length > 0; length--) {
      const by = setBy.get(dottedPath(path.slice(0, length)));
      if (by) return `${by} (${dotted})`;
    }
    const node = tree && findNodeAtLocation(tree, path.filter((key) => typeof key !== 'symbol') as Array<string | number>);
    if (!node || !lines) return dotted;
    // A member's value is found; its key is where a reader looks.
    const at = lines.position(node.parent?.type === 'property' ? node.parent.offset : node.offset);
    return `${dotted} (${file.path}:${at.line}:${at.column})`;
  };
};

/** Merges the sources (flags > env > file > defaults) and validates the result. */
export const loadConfig = (sources: ConfigSources = {}): Config => {
  const env = sources.env ?? process.env;
  const cwd = sources.cwd ?? process.cwd();
  const defaultPath = `${cwd}/cardgate.json`;
  const filePath = sources.configPath ?? (existsSync(defaultPath) ? defaultPath : undefined);
  const file = filePath === undefined ? undefined : { path: filePath, ...readConfigFile(filePath) };
  const merged: Json = file ? structuredClone(file.json) : {};
  // Which variable or flag set each path: a bad value is named as the operator wrote it.
  const setBy = new Map<string, string>();
  const set = (path: string[], value: unknown, by: string) => {
    setPath(merged, path, value);
    setBy.set(path.join('.'), by);
  };
  for (const [name, spec] of Object.entries(envVars)) {
    const raw = env[name];
    if (raw !== undefined && raw !== '') set(spec.path, convert(raw, spec.type), name);
  }
  for (const [name, spec] of Object.entries(configFlags)) {
    const raw = sources.flags?.[name];
    if (raw !== undefined) set(spec.path, convert(raw, spec.type), `--${name}`);
  }
  if (sources.sidecar) set(['mode'], 'sidecar', '--sidecar');
  return parseConfig(merged, filePath ? `configuration (file ${filePath}, env, flags)` : 'configuration (env, flags)', settingNamer(setBy, file));
};

/** The configuration with its paths absolute (from `cwd`): the log names them so, and a reload reads the same files. */
export const withAbsolutePaths = (config: Config, cwd = process.cwd()): Config => ({
  ...config,
  dataDir: resolvePath(cwd, config.dataDir),
  signatures: { ...config.signatures, trustFiles: config.signatures.trustFiles.map((file) => resolvePath(cwd, file)) },
  rules: { ruleset: config.rules.ruleset === undefined || config.rules.ruleset.startsWith('cardgate:') ? config.rules.ruleset : resolvePath(cwd, config.rules.ruleset) },
  auth: config.auth.oidc?.clientSecretFile === undefined ? config.auth : { ...config.auth, oidc: { ...config.auth.oidc, clientSecretFile: resolvePath(cwd, config.auth.oidc.clientSecretFile) } },
});

/** {base_url} and {reports_url} once the listening port is known. */
/** The public address when it is known before listening: configured, or from a fixed port (not 0, chosen at start). */
export const knownPublicUrl = (config: Config): string | undefined =>
  config.publicUrl !== undefined || config.port !== 0 ? resolveUrls(config).publicUrl : undefined;

export const resolveUrls = (config: Config, listenPort = config.port): { publicUrl: string; reportsUrl: string } => {
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const shownHost = host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host;
  const publicUrl = config.publicUrl ?? `http://${shownHost}:${listenPort}`;
  return { publicUrl, reportsUrl: config.reportsUrl ?? publicUrl };
};
