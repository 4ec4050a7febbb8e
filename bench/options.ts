/**
 * The command line of `npm run bench`: the groups to run, and what shortens a run while the bench
 * itself is being worked on. A target judged on a run shorter than the one it is defined on says so
 * instead of met or MISSED (see machine.ts).
 */
import { parseArgs } from 'node:util';

export interface BenchOptions {
  groups: string[];
  /** Seconds of each load run (wrk -d); floor's default 5. */
  seconds?: number;
  /** Alternating rounds of the measured rows; floor's default 3. */
  rounds?: number;
  /** store-scale: reports imported (default 1,000,000). */
  reports?: number;
  /** floor: keyed validations the RSS row tops up to (default 100,000). */
  validations?: number;
}

const usage = 'npm run bench [-- GROUP ...] [--seconds N] [--rounds N] [--reports N] [--validations N]';

const positive = (name: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`bench: --${name} takes a whole number of at least 1, not ${JSON.stringify(raw)} (${usage})`);
  return n;
};

export const parseBenchArgs = (argv: string[]): BenchOptions => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { seconds: { type: 'string', short: 'd' }, rounds: { type: 'string' }, reports: { type: 'string' }, validations: { type: 'string' } },
  });
  return {
    groups: positionals,
    seconds: positive('seconds', values.seconds),
    rounds: positive('rounds', values.rounds),
    reports: positive('reports', values.reports),
    validations: positive('validations', values.validations),
  };
};
