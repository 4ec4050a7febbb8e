/**
 * The layout's rules, read off the imports of every file in src/: no circle among the files, and
 * no import that runs back up the layer order
 *   lib < errors < metrics < engine < validator < config < store < deps < features < api, dashboard, pages < app (app.ts, server.ts) < cli < action, main
 * (a file may import its own layer and the layers below it; the GitHub Action's entry in
 * src/action and main.ts are both tops, neither importing the other). One exception: deps.ts, which every
 * layer above imports, may take types (`import type`) from features, such as the service
 * validator's (the validator layer's pool over the features' tasks); a feature that imported
 * deps.ts back would be a circle, which is refused anyway.
 * Also the sizes: no function in src over 80 lines, no file over 500, but those allowed below.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { functionLengths } from './support/function-lengths.ts';

const root = new URL('..', import.meta.url).pathname;

export interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const layers = ['lib', 'errors', 'metrics', 'engine', 'validator', 'config', 'store', 'deps', 'features', 'api', 'app', 'cli', 'action', 'main'] as const;
type Layer = (typeof layers)[number];

/** The layer of a path relative to the repository root; undefined for a file no rule places. */
export const layerOf = (file: string): Layer | undefined => {
  const [top, sub] = file.split('/').slice(1);
  if (file === 'src/config.ts') return 'config';
  if (file === 'src/deps.ts') return 'deps';
  if (file === 'src/app.ts' || file === 'src/server.ts') return 'app';
  if (file === 'src/main.ts') return 'main';
  if (sub === undefined) return undefined;
  if (top === 'dashboard' || top === 'pages') return 'api';
  return (layers as readonly string[]).includes(top!) ? (top as Layer) : undefined;
};

const rank = (layer: Layer): number => layers.indexOf(layer);

/** Static imports and re-exports, side-effect imports, dynamic import() and worker URLs (`new URL('./x.ts', import.meta.url)`). */
const specifiers: RegExp[] = [
  /^\s*(import|export)\s+(type\s+)?(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:\s*,\s*(?:\{[^}]*\}|\*\s+as\s+\w+))?)\s+from\s*(['"])([^'"]+)\3/gm,
  /^\s*import()()\s*(['"])([^'"]+)\3/gm,
  /\bimport()()\(\s*(['"])([^'"]+)\3\s*\)/g,
  /\bnew URL()()\(\s*(['"])(\.[^'"]*\.ts)\3\s*,\s*import\.meta\.url\s*\)/g,
];

/** The imports of `file` (relative to the root) that land in `within` (src/ unless told). */
export const importsOf = (file: string, text: string, within = 'src/'): Edge[] =>
  specifiers.flatMap((pattern) =>
    [...text.matchAll(pattern)].flatMap((m) => {
      const spec = m[4]!;
      if (!spec.startsWith('.')) return [];
      const to = relative(root, resolve(root, dirname(file), spec));
      return to.startsWith(within) ? [{ from: file, to, typeOnly: m[2] !== undefined && m[2] !== '' }] : [];
    }),
  );

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );

const show = (e: Edge): string => `${e.from} -> ${e.to}${e.typeOnly ? ' (type)' : ''}`;

/** Imports that run back up the layer order, and files no layer holds. */
export const upwardImports = (edges: Edge[]): string[] =>
  edges.flatMap((e) => {
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    if (from === undefined || to === undefined) return [`${show(e)}: ${from === undefined ? e.from : e.to} is in no layer`];
    if (rank(to) <= rank(from)) return [];
    if (from === 'deps' && to === 'features' && e.typeOnly) return [];
    return [`${show(e)}: ${from} imports ${to}`];
  });

/**
 * Within features/, the folders (and the files at its root) in the order they may import one
 * another: each only from those before it, so no two features import each other, even for a type.
 */
const featureOrder = [
  'audit', 'reports', 'transfer', 'card-fetch', 'limits', 'accounts', 'auth', 'agents', 'rulesets', 'trust',
  'validation', 'probes', 'webhooks', 'mcp', 'monitors', 'tasks.ts', 'task-worker.ts', 'validator.ts',
];

/** The feature folder (or root file) of a path in src/features/; undefined outside it. */
const featureOf = (file: string): string | undefined => (file.startsWith('src/features/') ? file.split('/')[2] : undefined);

/** Imports between features that run back up featureOrder, and features it does not list. */
export const backwardFeatureImports = (edges: Edge[]): string[] =>
  edges.flatMap((e) => {
    const from = featureOf(e.from);
    const to = featureOf(e.to);
    if (from === undefined || to === undefined || from === to) return [];
    const [rankFrom, rankTo] = [featureOrder.indexOf(from), featureOrder.indexOf(to)];
    if (rankFrom < 0 || rankTo < 0) return [`${show(e)}: ${rankFrom < 0 ? from : to} is not in featureOrder`];
    return rankTo < rankFrom ? [] : [`${show(e)}: ${from} imports ${to}`];
  });

/** Every circle, as the imports that make it (Tarjan's strongly connected components). */
export const circles = (edges: Edge[]): string[][] => {
  const next = new Map<string, Edge[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const { to } of next.get(v) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, index.get(to)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const members = new Set<string>();
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      members.add(w);
    } while (w !== v);
    const inside = edges.filter((e) => members.has(e.from) && members.has(e.to));
    if (inside.length > 0) found.push(inside.map(show));
  };
  for (const v of new Set(edges.flatMap((e) => [e.from, e.to]))) if (!index.has(v)) visit(v);
  return found;
};

const srcEdges = (): Edge[] => sourceFiles('src').flatMap((f) => importsOf(f, readFileSync(join(root, f), 'utf8')));

test('src/: no import runs back up the layer order', () => {
  const edges = srcEdges();
  assert.ok(edges.length > 100, `only ${edges.length} imports found: the parser is broken`);
  assert.deepEqual(upwardImports(edges), []);
});

test('src/: no circle among the files', () => {
  assert.deepEqual(circles(srcEdges()), []);
});

test('bench/: no circle among the files', () => {
  const edges = sourceFiles('bench').flatMap((f) => importsOf(f, readFileSync(join(root, f), 'utf8'), 'bench/'));
  assert.ok(edges.length > 5, `only ${edges.length} imports found: the parser is broken`);
  assert.deepEqual(circles(edges), []);
});

test('src/features/: each feature imports only those before it in featureOrder', () => {
  assert.deepEqual(backwardFeatureImports(srcEdges()), []);
  const features = new Set(sourceFiles('src/features').map((f) => featureOf(f)!));
  assert.deepEqual([...features].filter((f) => !featureOrder.includes(f)), [], 'every feature is in the order');
});

test('every file of src/ is in a layer', () => {
  assert.deepEqual(sourceFiles('src').filter((f) => layerOf(f) === undefined), []);
});

test('the checks see an upward import and a circle', () => {
  const file = 'src/features/reports/reports.ts';
  const text = [
    "import type { Config } from '../../config.ts';",
    "import {\n  createApp,\n  type App,\n} from '../../app.ts';",
    "export { x } from './other.ts';",
    "import './side-effect.ts';",
    "const later = await import('../../api/env.ts');",
    "const worker = new URL('./worker.ts', import.meta.url);",
    "import { z } from 'zod';",
  ].join('\n');
  const edges = importsOf(file, text);
  assert.deepEqual(
    edges.map(show),
    [
      'src/features/reports/reports.ts -> src/config.ts (type)',
      'src/features/reports/reports.ts -> src/app.ts',
      'src/features/reports/reports.ts -> src/features/reports/other.ts',
      'src/features/reports/reports.ts -> src/features/reports/side-effect.ts',
      'src/features/reports/reports.ts -> src/api/env.ts',
      'src/features/reports/reports.ts -> src/features/reports/worker.ts',
    ],
  );
  assert.deepEqual(upwardImports(edges), [
    'src/features/reports/reports.ts -> src/app.ts: features imports app',
    'src/features/reports/reports.ts -> src/api/env.ts: features imports api',
  ]);
  assert.deepEqual(upwardImports([{ from: 'src/deps.ts', to: 'src/features/tasks.ts', typeOnly: true }]), []);
  assert.equal(upwardImports([{ from: 'src/deps.ts', to: 'src/features/tasks.ts', typeOnly: false }]).length, 1);
  assert.deepEqual(upwardImports([{ from: 'src/validator/pool.ts', to: 'src/features/tasks.ts', typeOnly: true }]), ['src/validator/pool.ts -> src/features/tasks.ts (type): validator imports features']);
  assert.deepEqual(backwardFeatureImports([
    { from: 'src/features/validation/operations.ts', to: 'src/features/rulesets/server-ruleset.ts', typeOnly: true },
    { from: 'src/features/rulesets/account-rulesets.ts', to: 'src/features/validation/card-result.ts', typeOnly: true },
    { from: 'src/features/rulesets/account-rulesets.ts', to: 'src/features/rulesets/server-ruleset.ts', typeOnly: false },
    { from: 'src/features/newcomer/x.ts', to: 'src/features/audit/audit.ts', typeOnly: false },
  ]), [
    'src/features/rulesets/account-rulesets.ts -> src/features/validation/card-result.ts (type): rulesets imports validation',
    'src/features/newcomer/x.ts -> src/features/audit/audit.ts: newcomer is not in featureOrder',
  ]);
  const circle = [
    { from: 'src/app.ts', to: 'src/api/routes/a.ts', typeOnly: false },
    { from: 'src/api/routes/a.ts', to: 'src/app.ts', typeOnly: true },
    { from: 'src/app.ts', to: 'src/lib/log.ts', typeOnly: false },
  ];
  assert.deepEqual(circles(circle), [['src/app.ts -> src/api/routes/a.ts', 'src/api/routes/a.ts -> src/app.ts (type)']]);
});

const maxFunctionLines = 80;
const maxFileLines = 500;
/**
 * What is over the limits, at its size when listed: an entry may not grow, should be lowered as
 * it shrinks, and must go once within the limit (the test says so). Empty: nothing in src is over.
 */
const longFunctions: Record<string, number> = {};
const longFiles: Record<string, number> = {};

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** What exceeds `limit` beyond its allowance, and the allowances no longer needed. */
const overLimit = (sizes: Map<string, number>, limit: number, allowed: Record<string, number>): string[] => [
  ...[...sizes].filter(([key, size]) => size > Math.max(limit, allowed[key] ?? 0)).map(([key, size]) => `${key}: ${size} lines (limit ${allowed[key] ?? limit})`),
  ...Object.entries(allowed)
    .filter(([key]) => (sizes.get(key) ?? 0) <= limit)
    .map(([key]) => `${key}: now ${sizes.get(key) ?? 0} lines, within the limit: remove its allowance`),
];

test(`src/: no function over ${maxFunctionLines} lines, no file over ${maxFileLines}, but the listed ones, which may not grow`, () => {
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  for (const file of sourceFiles('src')) {
    const text = readFileSync(join(root, file), 'utf8');
    files.set(file, lineCount(text));
    for (const { name, lines } of functionLengths(text)) {
      const key = `${file} ${name}`;
      functions.set(key, Math.max(lines, functions.get(key) ?? 0));
    }
  }
  assert.ok(functions.size > 500, `only ${functions.size} functions found: the reader is broken`);
  assert.deepEqual(overLimit(functions, maxFunctionLines, longFunctions), []);
  assert.deepEqual(overLimit(files, maxFileLines, longFiles), []);
});

test('the function reader sees functions of every form, and skips strings, templates, comments and regular expressions', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  x${i}();`).join('\n');
  const text = [
    `export function plain(a: number): Promise<{ a: string }> {\n${body(3)}\n}`,
    `const arrow = async (a: string): Promise<void> => {\n${body(2)}\n};`,
    `class C {\n  method<T>(t: T) {\n    if (t) {\n      return '{' + \`\${t}}\` + /[{]/.source; // {\n    }\n  }\n}`,
    'for (const x of y) {\n  z();\n}',
  ].join('\n');
  assert.deepEqual(
    functionLengths(text).map(({ name, lines }) => [name, lines]),
    [
      ['plain', 5],
      ['arrow', 4],
      ['method', 5],
    ],
  );
  const sizes = new Map([['f', 81], ['g', 90], ['h', 70]]);
  assert.deepEqual(overLimit(sizes, 80, { g: 85, h: 95 }), ['f: 81 lines (limit 80)', 'g: 90 lines (limit 85)', 'h: now 70 lines, within the limit: remove its allowance']);
});
