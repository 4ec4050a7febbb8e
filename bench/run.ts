/**
 * npm run bench [-- admin|engine|store|http|pg|floor|store-scale|startup|worst|sea ...] [--seconds N]
 * [--rounds N] [--reports N] [--validations N]: runs the benchmark groups and prints one table
 * (options.ts says what the flags shorten). Speed and memory targets live here, never in unit tests.
 */
import { benchAdmin } from './admin.ts';
import { benchEngine } from './engine.ts';
import { benchFloor } from './floor.ts';
import { benchHttp } from './http.ts';
import { benchPg } from './pg.ts';
import { benchSea } from './sea.ts';
import { benchStartup } from './startup.ts';
import { loadNote, watchLoad } from './machine.ts';
import { parseBenchArgs, type BenchOptions } from './options.ts';
import { benchStoreScale } from './store-scale.ts';
import { benchStore } from './store.ts';
import { benchWorst } from './worst.ts';
import type { BenchRow } from './row.ts';

const groups: Record<string, (options: BenchOptions) => Promise<BenchRow[]>> = {
  admin: benchAdmin,
  engine: benchEngine,
  store: benchStore,
  http: benchHttp,
  pg: benchPg,
  floor: benchFloor,
  'store-scale': benchStoreScale,
  startup: benchStartup,
  worst: benchWorst,
  sea: benchSea,
};

let options: BenchOptions;
try {
  options = parseBenchArgs(process.argv.slice(2));
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}
const chosen = options.groups;
const unknown = chosen.filter((name) => !(name in groups));
if (unknown.length > 0) {
  console.error(`bench: unknown group(s) ${unknown.join(', ')}; choose from ${Object.keys(groups).join(', ')}`);
  process.exit(2);
}
watchLoad();
const rows: Array<BenchRow & { group: string }> = [];
for (const name of chosen.length > 0 ? chosen : Object.keys(groups)) {
  console.error(`bench: running ${name}…`);
  const started = performance.now();
  const loadBefore = loadNote();
  for (const row of await groups[name]!(options)) rows.push({ group: name, ...row });
  rows.push({ group: name, name: 'load and time', value: Math.round((performance.now() - started) / 1000), unit: 's', note: `before: ${loadBefore}; after: ${loadNote()}` });
}
const fmt = (v: number) => (Number.isInteger(v) ? String(v) : v >= 100 ? v.toFixed(0) : v.toFixed(2));
const table = rows.map((r) => [r.group, r.name, fmt(r.value), r.unit, r.note ?? '']);
const widths = [0, 1, 2, 3].map((i) => Math.max(...table.map((r) => r[i]!.length), 5));
console.log(['group', 'measure', 'value', 'unit', 'note'].map((h, i) => (i < 4 ? h.padEnd(widths[i]!) : h)).join('  '));
for (const r of table) console.log(r.map((c, i) => (i < 4 ? (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)) : c)).join('  '));
