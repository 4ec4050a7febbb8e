/**
 * Data dirs holding many reports and agents, made fast: one real keyed validation is recorded by the
 * server and exported (`cardgate export`), then its report, agent and history entry are repeated
 * with fresh ids, times, card names, agents and scores into an export stream, which `cardgate import`
 * reads into a new data dir. Only the portable export format is relied on, so the data sets follow
 * whatever engine the data dir uses.
 *
 * Report i (0 ≤ i < reports) is a pure function of i: created at an even step over the last `days`
 * days (oldest first), its id's random part drawn from i, its score 40-100, its agent i % agents,
 * its card named after the agent ("Weather agent 00042", five kinds, so a `q` of a kind matches a
 * fifth). Each agent holds the newest AGENT_HISTORY_LIMIT entries of its reports in its history
 * (counts of them all, its latest); with fewer reports than agents, the rest have none yet.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { DAY_MS } from '../src/lib/clock.ts';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { startServer } from './http.ts';
import { agentName, AGENT_TOKEN } from './load.ts';

/** An agent keeps this many entries of its history (the store's bound). */
const AGENT_HISTORY_LIMIT = 1000;
const KINDS = ['Weather', 'Travel', 'Billing', 'Support', 'Search'];
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export interface DatasetSpec {
  reports: number;
  agents: number;
  /** Reports spread over this many days before now (default 25: inside the default 30-day retention). */
  days?: number;
}

export interface Dataset {
  reports: number;
  agents: number;
  dataDir: string;
  /** The pro account's API key. */
  key: string;
  /** The i-th agent's id (agentName(i) is its name). */
  agentId: (i: number) => string;
  /** The i-th report's id. */
  reportId: (i: number) => string;
  /** Seconds `cardgate import` took. */
  importSeconds: number;
  /** The data dir's size on disk after the import, MB. */
  diskMB: number;
}

/** The body of a keyed validation naming its agent (AGENT_TOKEN: see load.ts): the sample card, score and suggestions. */
export const keyedValidateBody = (): string => JSON.stringify({ agent_card: sampleCard(), options: { include_score: true, include_suggestions: true, agent: AGENT_TOKEN } });

/** `n` base62 characters drawn from `seed` (a hash: the same seed, the same characters). */
const base62Of = (seed: string, n: number): string => {
  const bytes = createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; i < n; i++) out += BASE62[bytes[i]! % 62];
  return out;
};

/** A template's text split at its placeholders (`@@NAME@@`): filled by joining the parts with the values. */
const template = (text: string): ((values: Record<string, string>) => string) => {
  const parts = text.split(/@@(\w+)@@/);
  return (values) => {
    let out = parts[0]!;
    for (let i = 1; i < parts.length; i += 2) out += values[parts[i]!]! + parts[i + 1]!;
    return out;
  };
};

interface Recorded {
  key: string;
  /** Export lines of every table but the agents, their histories and the reports. */
  otherRows: string[];
  header: string;
  agent: Record<string, unknown>;
  /** The report's line with its id, time, agent, agent id, card name and score as placeholders, up to its request. */
  head: (values: Record<string, string>) => string;
  request: (values: Record<string, string>) => string;
}

/** Runs `cardgate` (the command given) to its exit; rejects with its stderr on failure; resolves its stdout. */
export const runCli = async (command: string[], args: string[]): Promise<string> => {
  const [cmd, ...pre] = command;
  const child = spawn(cmd!, [...pre, ...args], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`bench: cardgate ${args.join(' ')} exited with ${code}: ${err.slice(-2000)}`);
  return out;
};

/** One keyed validation recorded by the server (agent 0), exported, and made into templates. */
const record = async (scratch: string, command: string[]): Promise<Recorded> => {
  const dataDir = join(scratch, 'template');
  const key = await prepareDataDir(dataDir);
  const server = await startServer(dataDir, {}, command);
  try {
    const res = await fetch(`${server.url}/v1/validate`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: keyedValidateBody().replace(AGENT_TOKEN, agentName(0)) });
    if (res.status !== 200) throw new Error(`bench: the template validation answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  } finally {
    await server.stop();
  }
  const lines = (await runCli(command, ['export', '--data-dir', dataDir])).trim().split('\n');
  rmSync(dataDir, { recursive: true, force: true });
  const rows = lines.slice(1).map((l) => JSON.parse(l) as { table: string; row?: Record<string, unknown>; line?: string });
  const of = (table: string) => rows.filter((r) => r.table === table);
  const [agent, report] = [of('agents'), of('reports')];
  if (agent.length !== 1 || report.length !== 1) throw new Error(`bench: the template export holds ${agent.length} agents and ${report.length} reports, not one of each`);
  const agentRow = agent[0]!.row!;
  let line = report[0]!.line!;
  const parsed = JSON.parse(line) as { id: string; created_at: string; request_chars: number; request: { agent_card: { name: string } }; result: { score: number } };
  const marker = `"request_chars":${parsed.request_chars},"request":`;
  if (!line.endsWith('}') || line.indexOf(marker) + marker.length + parsed.request_chars !== line.length - 1) throw new Error('bench: the template report line does not end with its request as expected');
  line = line
    .replaceAll(parsed.id, '@@ID@@')
    .replaceAll(parsed.created_at, '@@AT@@')
    .replaceAll(String(agentRow.id), '@@AGENT_ID@@')
    .replaceAll(agentName(0), '@@AGENT@@')
    .replaceAll(JSON.stringify(parsed.request.agent_card.name), '"@@NAME@@"')
    .replace(`"score":${parsed.result.score}`, '"score":@@SCORE@@');
  const at = line.indexOf('"request_chars":');
  return {
    key,
    header: lines[0]!,
    otherRows: lines.slice(1).filter((_, i) => !['agents', 'agent_reports', 'reports'].includes(rows[i]!.table)),
    agent: agentRow,
    head: template(line.slice(0, at)),
    request: template(line.slice(line.indexOf(',"request":') + ',"request":'.length, -1)),
  };
};

/** What report i is: a pure function of i. */
const reportFacts = (spec: Required<DatasetSpec>, start: number, i: number) => {
  const createdMs = start + Math.floor((i * spec.days * DAY_MS) / Math.max(1, spec.reports));
  return {
    id: `rpt_${createdMs}_${base62Of(`report ${i}`, 20)}`,
    at: new Date(createdMs).toISOString(),
    score: 40 + (createHash('sha256').update(`score ${i}`).digest()[0]! % 61),
    agent: i % spec.agents,
  };
};

const agentIdOf = (i: number) => `agt_${base62Of(`agent ${i}`, 20)}`;
const cardNameOf = (agent: number) => `${KINDS[agent % KINDS.length]} agent ${String(agent).padStart(5, '0')}`;

/** The export stream of the data set, written to `file`. */
const writeExport = async (file: string, recorded: Recorded, spec: Required<DatasetSpec>, start: number): Promise<void> => {
  const out = createWriteStream(file);
  let chunk = '';
  const put = async (line: string): Promise<void> => {
    chunk += `${line}\n`;
    if (chunk.length < 1 << 20) return;
    if (!out.write(chunk)) await once(out, 'drain');
    chunk = '';
  };
  await put(recorded.header);
  for (const row of recorded.otherRows) await put(row);
  const entry = (i: number) => {
    const r = reportFacts(spec, start, i);
    return { agent_id: agentIdOf(r.agent), report_id: r.id, created_at: r.at, valid: true, score: r.score, errors: 0, warnings: 5, branch: null };
  };
  for (let a = 0; a < spec.agents; a++) {
    const count = a < spec.reports ? Math.ceil((spec.reports - a) / spec.agents) : 0;
    const last = a + (count - 1) * spec.agents;
    const latest = count > 0 ? entry(last) : null;
    const row = {
      ...recorded.agent,
      id: agentIdOf(a),
      name: agentName(a),
      first_seen: count > 0 ? entry(a).created_at : new Date(start).toISOString(),
      last_seen: latest?.created_at ?? new Date(start).toISOString(),
      latest_report_id: latest?.report_id ?? null,
      latest,
      counts: { reports: count, valid: count, invalid: 0 },
      badge_token: createHash('sha256').update(`badge ${a}`).digest('base64url'),
    };
    await put(JSON.stringify({ table: 'agents', row }));
    for (let k = Math.max(0, count - AGENT_HISTORY_LIMIT); k < count; k++) await put(JSON.stringify({ table: 'agent_reports', row: entry(a + k * spec.agents) }));
  }
  for (let i = 0; i < spec.reports; i++) {
    const r = reportFacts(spec, start, i);
    const values = { ID: r.id, AT: r.at, AGENT_ID: agentIdOf(r.agent), AGENT: agentName(r.agent), NAME: cardNameOf(r.agent), SCORE: String(r.score) };
    const request = recorded.request(values);
    await put(`{"table":"reports","line":${JSON.stringify(`${recorded.head(values)}"request_chars":${request.length},"request":${request}}`)}}`);
  }
  out.end(chunk);
  await once(out, 'finish');
};

const duMB = (dir: string): number => {
  let bytes = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) bytes += statSync(join(e.parentPath, e.name)).size;
  return Math.round(bytes / 2 ** 20);
};

/**
 * Makes the data sets: each a new data dir under `scratch` imported by `command` (cardgate as the
 * bench runs it), all with the same account and key.
 */
export const datasetMaker = (scratch: string, command: string[]) => {
  let recorded: Promise<Recorded> | undefined;
  return async (spec: DatasetSpec): Promise<Dataset> => {
    recorded ??= record(scratch, command);
    const full = { days: 25, ...spec };
    const start = Date.now() - full.days * DAY_MS;
    const dir = mkdtempSync(join(scratch, `set-${spec.reports}-${spec.agents}-`));
    const file = join(dir, 'export.jsonl');
    await writeExport(file, await recorded, full, start);
    const dataDir = join(dir, 'data');
    const began = performance.now();
    await runCli(command, ['import', '--data-dir', dataDir, file]);
    const importSeconds = (performance.now() - began) / 1000;
    rmSync(file);
    return { reports: spec.reports, agents: spec.agents, dataDir, key: (await recorded).key, agentId: agentIdOf, reportId: (i) => reportFacts(full, start, i).id, importSeconds, diskMB: duMB(dataDir) };
  };
};
