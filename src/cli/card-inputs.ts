/**
 * What the operands of `cardgate validate` (and the GitHub Action's `files`) name: files,
 * directories (searched for agent cards by file name, or by the patterns a project sets), globs, URLs and `-` (standard input), in the order
 * given, each file once. An operand that names nothing (no such path, a glob matching no file,
 * a directory holding no card) is an input that failed, with the reason.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { looksLikeUrl } from '../features/card-fetch/fetch-card.ts';

export type CardInput =
  | { kind: 'file'; name: string; path: string }
  | { kind: 'url'; name: string }
  | { kind: 'stdin'; name: 'stdin' }
  | { kind: 'missing'; name: string; message: string };

/** The file names a directory search takes for agent cards by default (`agent_card.json`: the name the ADK writes). */
export const defaultCardPatterns: readonly string[] = ['agent-card.json', 'agent_card.json', 'agent.json', '*.agent-card.json'];

/** At most this many patterns, each at most this long: each is matched against every path of the tree. */
const MAX_PATTERNS = 20;
const MAX_PATTERN_CHARS = 200;

/**
 * Why the patterns a project set cannot be a directory search's, or undefined: each must stay
 * inside the directory searched (no absolute path, no `..`), and they are bounded.
 */
export const patternsProblem = (patterns: readonly string[]): string | undefined => {
  if (patterns.length > MAX_PATTERNS) return `at most ${MAX_PATTERNS} patterns, not ${patterns.length}`;
  for (const pattern of patterns) {
    if (pattern === '') return 'a pattern must not be empty';
    if (pattern.length > MAX_PATTERN_CHARS) return `a pattern is at most ${MAX_PATTERN_CHARS} characters`;
    if (path.isAbsolute(pattern) || pattern.split(/[\\/]/).includes('..')) return `a pattern names files inside the directory searched (no absolute path, no ..), not "${pattern}"`;
  }
  return undefined;
};

/** A pattern as the search matches it: one without a slash is a file name, at any depth (as in .gitignore). */
const underDirectory = (pattern: string): string => (pattern.includes('/') ? pattern : `**/${pattern}`);

/** Never searched: dependencies and git's own files. Dot directories are (`.well-known` is where cards live). */
const ignored = ['**/node_modules/**', '**/.git/**'];

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Files under `cwd` matching `patterns`, sorted, named as the operand was: relative to the working
 * directory, or absolute when the operand was (a report names what its user typed).
 */
const search = async (patterns: string[], cwd: string, workDir: string, absolute: boolean): Promise<string[]> => {
  const { glob } = await import('tinyglobby');
  const found = await glob(patterns, { cwd, absolute: true, dot: true, onlyFiles: true, ignore: ignored, expandDirectories: false });
  return found.map((file) => (absolute ? file : path.relative(workDir, file) || file)).sort(byName);
};

/** How many JSON files the hint of an empty directory search names, at most. */
const HINT_NAMES = 3;

/**
 * What a directory holding no card by the names searched says: how many JSON files it holds and a
 * `--pattern` that takes them (the file names' common ending, when they share one past `.json`).
 */
const noCardHint = async (directory: string): Promise<string> => {
  const { glob } = await import('tinyglobby');
  const json = await glob(['**/*.json'], { cwd: directory, dot: true, onlyFiles: true, ignore: ignored, expandDirectories: false });
  if (json.length === 0) return 'it holds no JSON file';
  const names = json.map((file) => path.basename(file)).sort(byName);
  const shown = `${names.slice(0, HINT_NAMES).join(', ')}${names.length > HINT_NAMES ? ', …' : ''}`;
  return `it holds ${json.length === 1 ? '1 JSON file' : `${json.length} JSON files`} (${shown}): to check ${json.length === 1 ? 'it' : 'them'}, add --pattern '*${commonEnding(names)}'`;
};

/** The ending every name shares, from a separator on (`__agent-card.json`), else `.json`. */
const commonEnding = (names: readonly string[]): string => {
  let ending = names[0]!;
  for (const name of names) while (!name.endsWith(ending)) ending = ending.slice(1);
  const from = ending.search(/[-_.]/);
  const clean = from < 0 ? '' : ending.slice(from);
  return clean.length > '.json'.length && clean.endsWith('.json') && !/['\s*?[\]{}]/.test(clean) ? clean : '.json';
};

/** Expands one operand into the inputs it names; a directory is searched for `patterns`. */
const expand = async (operand: string, workDir: string, patterns: readonly string[]): Promise<CardInput[]> => {
  if (operand === '-') return [{ kind: 'stdin', name: 'stdin' }];
  if (looksLikeUrl(operand)) return [{ kind: 'url', name: operand }];
  const absolute = path.resolve(workDir, operand);
  const info = await stat(absolute).catch(() => undefined);
  if (info?.isDirectory()) {
    const files = await search(patterns.map(underDirectory), absolute, workDir, path.isAbsolute(operand));
    if (files.length > 0) return files.map((name) => ({ kind: 'file', name, path: path.resolve(workDir, name) }));
    return [{ kind: 'missing', name: operand, message: `no agent card under ${operand} (searched for ${patterns.join(', ')}); ${await noCardHint(absolute)}` }];
  }
  if (info) return [{ kind: 'file', name: operand, path: absolute }];
  // The glob library is loaded for a directory or a pattern only: most runs name files.
  if ((await import('tinyglobby')).isDynamicPattern(operand)) {
    const files = await search([operand], workDir, workDir, path.isAbsolute(operand));
    if (files.length > 0) return files.map((name) => ({ kind: 'file', name, path: path.resolve(workDir, name) }));
    return [{ kind: 'missing', name: operand, message: `no file matches ${operand}` }];
  }
  return [{ kind: 'missing', name: operand, message: `no such file or directory: ${operand}` }];
};

/**
 * The inputs the operands name, in their order; a file is checked once, however many paths lead
 * to it (named twice, or reached again through a symbolic link: a link back up a tree is a loop
 * the search walks a few times round).
 */
export const cardInputs = async (operands: readonly string[], workDir: string, patterns: readonly string[] = defaultCardPatterns): Promise<CardInput[]> => {
  const seen = new Set<string>();
  const inputs: CardInput[] = [];
  for (const operand of operands) {
    for (const input of await expand(operand, workDir, patterns)) {
      const key = input.kind === 'file' ? await realpath(input.path).catch(() => input.path) : `${input.kind}:${input.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inputs.push(input);
    }
  }
  return inputs;
};
