/**
 * The cost of recording one more report (putReport of a ~3 KB report + commit, durable) with
 * 100 reports stored and with 100,000 stored (acceptance: within 2x): the cost of one more report
 * must not grow with those kept. Also the open time with 100k reports and a read of an older report.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openFileStore, type FileStore } from '../src/store/file/file-store.ts';
import type { ReportRecord } from '../src/store/contract/report-records.ts';

interface BenchRow {
  name: string;
  value: number;
  unit: string;
  note?: string;
}

const SAMPLES = 200;
const WARMUP = 20;
/** The two stores are measured in alternating blocks, so warm-up and disk drift hit both alike. */
const BLOCKS = 8;
const SEED_BATCH = 2000;

/** A report of about 3 KB, shaped like a single validation. */
const makeReport = (id: string, createdMs: number): ReportRecord => ({
  id,
  kind: 'single',
  created_at: new Date(createdMs).toISOString(),
  account_id: 'acc_bench',
  version: '0.3.0',
  card: {
    name: `Bench agent ${id}`,
    description: 'An agent used to measure the store. '.repeat(12),
    url: 'https://agent.example.com/a2a',
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: Array.from({ length: 8 }, (_, i) => ({ id: `skill-${i}`, name: `Skill ${i}`, description: 'Does one thing well. '.repeat(6), tags: ['bench', `t${i}`] })),
  },
  result: {
    valid: true,
    score: 92,
    errors: [],
    warnings: Array.from({ length: 5 }, (_, i) => ({ code: `W${i}`, path: `skills[${i}].examples`, message: 'Examples help clients pick the skill.' })),
  },
});

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

interface Timings {
  /** putReport + awaited commit (durable). */
  total: number[];
  /** The synchronous part, during which the event loop is blocked. */
  blocking: number[];
}
const timings = (): Timings => ({ total: [], blocking: [] });

/** Times `count` rounds of putReport + commit, one at a time. */
const putCommit = async (store: FileStore, prefix: string, count: number, times: Timings): Promise<void> => {
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await store.putReport(makeReport(`rpt_${prefix}_${times.total.length}_${i}`, Date.now()));
    const committed = store.commit();
    times.blocking.push(performance.now() - t);
    await committed;
    times.total.push(performance.now() - t);
  }
};

const seed = async (store: FileStore, count: number): Promise<void> => {
  for (let i = 0; i < count; i++) {
    await store.putReport(makeReport(`rpt_seed_${i}`, Date.now()));
    if ((i + 1) % SEED_BATCH === 0 || i === count - 1) await store.commit();
  }
};

export async function benchStore(): Promise<BenchRow[]> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cardgate-bench-store-'));
  try {
    const reportBytes = JSON.stringify(makeReport('rpt_size', 0)).length;

    const bigDir = path.join(root, 'big');
    const seeding = await openFileStore({ dataDir: bigDir });
    const seedStart = performance.now();
    await seed(seeding, 100_000);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    await seeding.close();

    const openStart = performance.now();
    const big = await openFileStore({ dataDir: bigDir });
    const openMs = performance.now() - openStart;
    const small = await openFileStore({ dataDir: path.join(root, 'small') });
    await seed(small, 100);

    await putCommit(small, 'warm', WARMUP, timings());
    await putCommit(big, 'warm', WARMUP, timings());
    const smallTimes = timings();
    const bigTimes = timings();
    for (let b = 0; b < BLOCKS; b++) {
      await putCommit(small, 'm', SAMPLES / BLOCKS, smallTimes);
      await putCommit(big, 'm', SAMPLES / BLOCKS, bigTimes);
    }
    const [with100, with100k] = [median(smallTimes.total), median(bigTimes.total)];
    const [blocking100, blocking100k] = [median(smallTimes.blocking), median(bigTimes.blocking)];
    await small.close();
    const reads: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await big.getReport(`rpt_seed_${i * 1999}`); // spread over the store: mostly not in a cache
      reads.push(performance.now() - t);
    }
    await big.close();

    return [
      { name: 'put+commit (3 KB report), 100 stored', value: with100, unit: 'ms', note: `median of ${SAMPLES}; report ${reportBytes} B` },
      { name: 'put+commit (3 KB report), 100k stored', value: with100k, unit: 'ms', note: `median of ${SAMPLES}; seeded in ${seedSeconds.toFixed(1)} s` },
      { name: 'put+commit ratio 100k / 100', value: with100k / with100, unit: 'x', note: 'acceptance: <= 2 (fsync latency makes it noisy)' },
      { name: 'put+commit blocking part, 100 stored', value: blocking100, unit: 'ms', note: 'synchronous: the report serialised and written into the turn\'s transaction' },
      { name: 'put+commit blocking part, 100k stored', value: blocking100k, unit: 'ms' },
      { name: 'blocking part ratio 100k / 100', value: blocking100k / blocking100, unit: 'x', note: 'acceptance: <= 2' },
      { name: 'open with 100k reports', value: openMs, unit: 'ms' },
      { name: 'getReport of an older report, 100k stored', value: median(reads), unit: 'ms', note: 'median of 50, spread over the store' },
    ];
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
