/**
 * The floor group's growth rows: does a keyed validation cost more with more stored? CPU per keyed
 * request (the server's main thread, and all its threads) with 1,000 reports stored and with
 * 100,000, for one agent (every report in its history: the history at its 1,000-entry bound, the
 * counts at 1k or 100k) and for 10,000 agents (the reports spread over them; the load names each in
 * turn). Target: ≤ 1.2 × at 100k what it is at 1k, main thread. Each data set is imported once
 * (dataset.ts); each round starts a server on a fresh copy of it, warms it up for a second, then
 * measures one run: the stored count a row names is the data set's, and each run adds its own
 * requests (rps × seconds) on top.
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { keyedValidateBody, type Dataset, type DatasetSpec } from './dataset.ts';
import { startServer } from './http.ts';
import { AGENT_TOKEN, agentName, median, round2, type LoadResult, type LoadSpec } from './load.ts';
import { judge } from './machine.ts';
import { cpuPerRequest, readCpu, type CpuReading } from './measure.ts';
import type { BenchRow } from './row.ts';

export const GROWTH_SMALL = 1_000;
export const GROWTH_LARGE = 100_000;
const MANY_AGENTS = 10_000;

export interface GrowthRig {
  load: (spec: LoadSpec) => Promise<LoadResult>;
  scratch: string;
  cardgate: string[];
  makeDataset: (spec: DatasetSpec) => Promise<Dataset>;
  seconds: number;
  rounds: number;
  /** The larger store (GROWTH_LARGE unless shortened). */
  large: number;
}

interface Case {
  agents: number;
  reports: number;
  dataset: Dataset;
  runs: Array<{ rps: number; cpu: CpuReading }>;
}

/** One round of a case: a fresh copy of its data set, a server on it, a warm-up, a measured run. */
const measureOnce = async (rig: GrowthRig, c: Case, round: number): Promise<void> => {
  const dir = join(rig.scratch, `growth-run-${c.agents}-${c.reports}-${round}`);
  cpSync(c.dataset.dataDir, dir, { recursive: true });
  const server = await startServer(dir, {}, rig.cardgate);
  try {
    const body = keyedValidateBody();
    const spec: LoadSpec = {
      url: `${server.url}/v1/validate`,
      method: 'POST',
      headers: { Authorization: `Bearer ${c.dataset.key}` },
      ...(c.agents === 1 ? { body: body.replace(AGENT_TOKEN, agentName(0)) } : { body, agents: c.agents }),
      connections: 50,
      seconds: rig.seconds,
    };
    await rig.load({ ...spec, seconds: 1 }); // JIT, connections
    const before = readCpu(server.pid);
    const r = await rig.load(spec);
    c.runs.push({ rps: r.rps, cpu: cpuPerRequest(before, readCpu(server.pid), r.requests) });
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

export const growthRows = async (rig: GrowthRig): Promise<BenchRow[]> => {
  const cases: Case[] = [];
  const made: string[] = [];
  for (const agents of [1, MANY_AGENTS]) {
    for (const reports of [GROWTH_SMALL, rig.large]) {
      const dataset = await rig.makeDataset({ reports, agents });
      made.push(`${reports}/${agents}: ${round2(dataset.importSeconds)} s, ${dataset.diskMB} MB`);
      cases.push({ agents, reports, dataset, runs: [] });
    }
  }
  for (let round = 0; round < rig.rounds; round++) for (const c of cases) await measureOnce(rig, c, round);
  const shortened = rig.large < GROWTH_LARGE ? `${rig.large} reports, the target is at ${GROWTH_LARGE}` : undefined;
  const rows: BenchRow[] = [];
  for (const agents of [1, MANY_AGENTS]) {
    const [small, large] = cases.filter((c) => c.agents === agents) as [Case, Case];
    const of = (c: Case) => ({ main: median(c.runs.map((r) => r.cpu.main)), all: median(c.runs.map((r) => r.cpu.all)), rps: median(c.runs.map((r) => r.rps)) });
    const [s, l] = [of(small), of(large)];
    const ratio = round2(l.main / s.main);
    rows.push({
      name: `growth: CPU per keyed request at ${large.reports / 1000}k / ${small.reports / 1000}k stored reports, ${agents === 1 ? 'one agent' : `${agents} agents`}`,
      value: ratio,
      unit: 'ratio',
      note:
        `main thread ${Math.round(l.main)} vs ${Math.round(s.main)} µs (all threads ${Math.round(l.all)} vs ${Math.round(s.all)} µs = ${round2(l.all / s.all)}); ` +
        `${Math.round(l.rps)} vs ${Math.round(s.rps)} req/s; median of ${rig.rounds} rounds, a fresh copy each; target ≤ 1.2: ${judge(ratio <= 1.2, shortened)}`,
    });
  }
  rows.push({ name: 'growth: data sets imported (reports/agents)', value: 0, unit: '-', note: made.join('; ') });
  return rows;
};
