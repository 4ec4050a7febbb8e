/**
 * Upgrading a data directory of the first embedded layout (until 0.1 of 2026-11: every table in the
 * lowdb snapshot `store.json` of format 1 and its journal, the reports in `reports/seg-*.jsonl`,
 * all of it loaded into memory at start) to the present one, in place, at open:
 *
 * 1. the snapshot and the journals are loaded as always; the rows of the tables that now live in
 *    the database (agents and their histories, jobs, the audit log) go there as they are read;
 * 2. each segment's reports go to the database, as their lines (a torn tail is cut off and a bad
 *    line quarantined, as any file of the store is read: recovery.ts);
 * 3. once the database is durable, a snapshot of the present format is written (temp file, fsync,
 *    rename): from then on the directory is of the new layout;
 * 4. then the segments are deleted.
 * Killed at any point, the next start finds either the old snapshot with the segments (and does it
 * all again: every row and report is put by its key, replacing what a first attempt stored), or
 * the new snapshot with segments left (and puts their reports again, then deletes them).
 */
import fs, { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../lib/log.ts';
import type { ReportRecord } from '../contract/report-records.ts';
import { diskChange, syncDirectoryAsync } from './durable-file.ts';
import type { Recovery } from './recovery.ts';

/** The first layout's report segments, in the data directory. */
export const OLD_REPORTS_DIR = 'reports';
const SEGMENT_NAME = /^seg-(\d+)\.jsonl$/;

const notAReport = (value: unknown): string | undefined => {
  const r = value as ReportRecord | null;
  return typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.created_at === 'string' && !Number.isNaN(Date.parse(r.created_at))
    ? undefined
    : 'not a report (an id and a created_at date are required)';
};

/** The segment files left by the first layout, in order; none when the directory is of the present layout. */
export const oldSegments = (dataDir: string): string[] => {
  const dir = path.join(dataDir, OLD_REPORTS_DIR);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((name) => ({ name, no: Number(SEGMENT_NAME.exec(name)?.[1] ?? NaN) }))
    .filter((s) => !Number.isNaN(s.no))
    .sort((a, b) => a.no - b.no)
    .map((s) => path.join(dir, s.name));
};

/**
 * Puts every report of the segments (each line as it is); yields to the event loop every `batch`
 * reports, so that the database commits as it goes. Resolves how many reports were put.
 */
export const importSegments = async (segments: readonly string[], recovery: Recovery, put: (line: string) => void, batch = 5000): Promise<number> => {
  let count = 0;
  for (const file of segments) {
    for (const { text } of recovery.readLog(file, notAReport)) {
      put(text);
      if (++count % batch === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return count;
};

/** Deletes the first layout's segments and their directory (once the present layout is durable). */
export const removeSegments = async (dataDir: string, log: Logger): Promise<void> => {
  const dir = path.join(dataDir, OLD_REPORTS_DIR);
  diskChange(dir);
  await fsp.rm(dir, { recursive: true, force: true });
  await syncDirectoryAsync(dataDir);
  log.info('store upgrade: the first layout\'s report segments were deleted', { dir });
};
