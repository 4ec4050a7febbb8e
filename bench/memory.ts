/**
 * The floor group's memory rows, each on a server of its own (so that no row before decides its
 * state):
 *   - RSS idle, after the first 1,000 keyed validations (over 1,000 agents) and after 100k keyed
 *     validations over 10,000 agents (target ≤ 1.5 × after the first 1,000);
 *   - RSS 10 s after a burst of 30 cards of 1-3 MB (keyed, four at a time) against RSS before it,
 *     on a server that did its first 1,000 keyed validations and then idled 10 s (target ≤ 1.3 ×).
 *     That server takes single bodies of up to 4 MiB (CARDGATE_MAX_BODY_BYTES); nothing else
 *     differs from the defaults.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { keyedValidateBody } from './dataset.ts';
import { startServer } from './http.ts';
import { agentName, round2, type LoadResult, type LoadSpec } from './load.ts';
import { judge } from './machine.ts';
import { FIRST_VALIDATIONS, VALIDATIONS_FOR_RSS, rssMB, sendRequests } from './measure.ts';
import type { BenchRow } from './row.ts';

const AGENTS = 10_000;
const BURST_CARDS = 30;
const BURST_PARALLEL = 4;
const IDLE_MS = 10_000;
const MAX_BODY = 4 * 2 ** 20;

/** A card of about `bytes` (the sample card with more skills), named `name`. */
const largeCard = (bytes: number, name: string): Record<string, unknown> => {
  const card: Record<string, unknown> = { ...sampleCard(), name };
  const skill = (card.skills as Array<Record<string, unknown>>)[0]!;
  const oneSkill = JSON.stringify(skill).length + 1;
  const skills = Array.from({ length: Math.ceil(bytes / oneSkill) }, (_, i) => ({ ...skill, id: `${String(skill.id)}-${i}`, name: `${String(skill.name)} ${i}` }));
  return { ...card, skills };
};

export interface MemoryRig {
  load: (spec: LoadSpec) => Promise<LoadResult>;
  scratch: string;
  cardgate: string[];
  /** Keyed validations the RSS row tops up to (VALIDATIONS_FOR_RSS unless shortened). */
  validations: number;
}

const keyedServer = async (rig: MemoryRig, name: string, env: Record<string, string> = {}) => {
  const dataDir = join(rig.scratch, name);
  const key = await prepareDataDir(dataDir);
  const server = await startServer(dataDir, env, rig.cardgate);
  const validate: LoadSpec = { url: `${server.url}/v1/validate`, method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: keyedValidateBody(), agents: AGENTS, connections: 50, seconds: 10 };
  return { server, validate };
};

/** RSS idle, after the first 1,000 keyed validations and after `rig.validations` over 10,000 agents. */
const growthOfRss = async (rig: MemoryRig): Promise<BenchRow[]> => {
  const { server, validate } = await keyedServer(rig, 'rss-data');
  try {
    await sleep(1000); // the worker started, nothing asked yet
    const idle = rssMB(server.pid);
    await sendRequests(validate, FIRST_VALIDATIONS);
    const first = rssMB(server.pid);
    let done = FIRST_VALIDATIONS;
    while (done < rig.validations) done += (await rig.load({ ...validate, seconds: Math.max(1, Math.min(10, Math.ceil((rig.validations - done) / 5000))) })).requests;
    const after = rssMB(server.pid);
    const ratio = round2(after / first);
    const shortened = rig.validations < VALIDATIONS_FOR_RSS ? `${done} validations, the target is at ${VALIDATIONS_FOR_RSS}` : undefined;
    return [
      { name: 'RSS idle (started, no request)', value: idle, unit: 'MB' },
      { name: `RSS after the first ${FIRST_VALIDATIONS} keyed validations`, value: first, unit: 'MB', note: `over ${FIRST_VALIDATIONS} agents` },
      {
        name: `RSS after ${Math.round(done / 1000)}k keyed validations over ${AGENTS} agents`,
        value: after,
        unit: 'MB',
        note: `${ratio} × after the first ${FIRST_VALIDATIONS}; target ≤ 1.5: ${judge(ratio <= 1.5, shortened)}`,
      },
    ];
  } finally {
    await server.stop();
  }
};

/** RSS 10 s after a burst of large cards against RSS before it, on a server that has done its first 1,000 validations and idled 10 s. */
const burstOfLargeCards = async (rig: MemoryRig): Promise<BenchRow> => {
  const { server, validate } = await keyedServer(rig, 'burst-data', { CARDGATE_MAX_BODY_BYTES: String(MAX_BODY) });
  try {
    await sendRequests(validate, FIRST_VALIDATIONS);
    await sleep(IDLE_MS);
    const before = rssMB(server.pid);
    let sent = 0;
    let largest = 0;
    const send = async (): Promise<void> => {
      while (sent < BURST_CARDS) {
        const i = sent++;
        const body = JSON.stringify({ agent_card: largeCard((1 + (i % 3)) * 2 ** 20 * 0.95, `Large agent ${i}`), options: { agent: agentName(i) } });
        largest = Math.max(largest, body.length);
        const res = await fetch(validate.url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...validate.headers }, body });
        if (res.status !== 200) throw new Error(`bench: a large card answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: BURST_PARALLEL }, send));
    const peak = rssMB(server.pid);
    await sleep(IDLE_MS);
    const settled = rssMB(server.pid);
    const ratio = round2(settled / before);
    return {
      name: `RSS ${IDLE_MS / 1000} s after a burst of ${BURST_CARDS} cards of 1-3 MB`,
      value: settled,
      unit: 'MB',
      note: `${ratio} × before it (${before} MB: after the first ${FIRST_VALIDATIONS} keyed validations and ${IDLE_MS / 1000} s idle; ${peak} MB at the burst's end; largest body ${round2(largest / 2 ** 20)} MB, ${BURST_PARALLEL} at a time, keyed); target ≤ 1.3: ${judge(ratio <= 1.3)}`,
    };
  } finally {
    await server.stop();
  }
};

export const memoryRows = async (rig: MemoryRig): Promise<BenchRow[]> => [...(await growthOfRss(rig)), await burstOfLargeCards(rig)];
