/**
 * The floor group's memory rows, on a server of their own (so that the rows before do not decide
 * its state):
 *   - RSS idle, after the first 1,000 keyed validations (over 1,000 agents) and after 100k keyed
 *     validations over 10,000 agents (target ≤ 1.5 × after the first 1,000);
 *   - then RSS 10 s after a burst of 30 cards of 1-3 MB (keyed, four at a time) against RSS just
 *     before it, both read after 10 s idle (target ≤ 1.3 ×). The server takes single bodies of up
 *     to 4 MiB (CARDGATE_MAX_BODY_BYTES) for this; nothing else differs from its defaults.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { prepareDataDir, sampleCard } from '../test/support/seed.ts';
import { keyedValidateBody } from './dataset.ts';
import { startServer } from './http.ts';
import { agentName, round2, type LoadResult, type LoadSpec } from './load.ts';
import { judge } from './machine.ts';
import { FIRST_VALIDATIONS, VALIDATIONS_FOR_RSS, rssMB, sendRequests } from './measure.ts';
import type { BenchRow } from './run.ts';

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

export const memoryRows = async (rig: MemoryRig): Promise<BenchRow[]> => {
  const dataDir = join(rig.scratch, 'memory-data');
  const key = await prepareDataDir(dataDir);
  const server = await startServer(dataDir, { CARDGATE_MAX_BODY_BYTES: String(MAX_BODY) }, rig.cardgate);
  try {
    const auth = { Authorization: `Bearer ${key}` };
    const validate: LoadSpec = { url: `${server.url}/v1/validate`, method: 'POST', headers: auth, body: keyedValidateBody(), agents: AGENTS, connections: 50, seconds: 10 };
    await sleep(1000); // the worker started, nothing asked yet
    const idle = rssMB(server.pid);
    await sendRequests(validate, FIRST_VALIDATIONS);
    const first = rssMB(server.pid);
    let done = FIRST_VALIDATIONS;
    while (done < rig.validations) done += (await rig.load({ ...validate, seconds: Math.max(1, Math.min(10, Math.ceil((rig.validations - done) / 5000))) })).requests;
    const after = rssMB(server.pid);
    const ratio = round2(after / first);
    const shortened = rig.validations < VALIDATIONS_FOR_RSS ? `${done} validations, the target is at ${VALIDATIONS_FOR_RSS}` : undefined;

    await sleep(IDLE_MS);
    const before = rssMB(server.pid);
    let sent = 0;
    let largest = 0;
    const send = async (): Promise<void> => {
      while (sent < BURST_CARDS) {
        const i = sent++;
        const body = JSON.stringify({ agent_card: largeCard((1 + (i % 3)) * 2 ** 20 * 0.95, `Large agent ${i}`), options: { agent: agentName(i) } });
        largest = Math.max(largest, body.length);
        const res = await fetch(validate.url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...auth }, body });
        if (res.status !== 200) throw new Error(`bench: a large card answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: BURST_PARALLEL }, send));
    const peak = rssMB(server.pid);
    await sleep(IDLE_MS);
    const settled = rssMB(server.pid);
    const burstRatio = round2(settled / before);
    return [
      { name: 'RSS idle (started, no request)', value: idle, unit: 'MB' },
      { name: `RSS after the first ${FIRST_VALIDATIONS} keyed validations`, value: first, unit: 'MB', note: `over ${FIRST_VALIDATIONS} agents` },
      {
        name: `RSS after ${Math.round(done / 1000)}k keyed validations over ${AGENTS} agents`,
        value: after,
        unit: 'MB',
        note: `${ratio} × after the first ${FIRST_VALIDATIONS}; target ≤ 1.5: ${judge(ratio <= 1.5, shortened)}`,
      },
      {
        name: `RSS ${IDLE_MS / 1000} s after a burst of ${BURST_CARDS} cards of 1-3 MB`,
        value: settled,
        unit: 'MB',
        note: `${burstRatio} × before it (${before} MB, read after ${IDLE_MS / 1000} s idle; ${peak} MB at the burst's end; largest body ${round2(largest / 2 ** 20)} MB, ${BURST_PARALLEL} at a time, keyed); target ≤ 1.3: ${judge(burstRatio <= 1.3)}`,
      },
    ];
  } finally {
    await server.stop();
  }
};
