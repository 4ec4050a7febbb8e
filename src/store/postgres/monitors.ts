/** The monitors on PostgreSQL: one row each, deleted with their account (see PgAccounts.deleteAccount). */
import { encodeRecord } from '../contract/encode.ts';
import type { CreateMonitorOutcome, MonitorChange, MonitorPageQuery, MonitorRecord, MonitorRunUpdate, MonitorsTable } from '../contract/monitors.ts';
import type { Page } from '../contract/paging.ts';
import { pageFrom } from './paging.ts';
import type { PgContext } from './context.ts';
import { optionalText, sought, text, type Queries } from './sql.ts';

/** The advisory lock key under which monitors are counted and created ("mo" in ASCII). */
const CREATE_LOCK = 0x6d6f;

export const monitorFromRow = (row: Record<string, unknown>): MonitorRecord => {
  const monitor: MonitorRecord = {
    id: row.id as string,
    account_id: row.account_id as string,
    url: row.url as string,
    agent: (row.agent as string | null) ?? null,
    interval_seconds: row.interval_seconds as number,
    notify_url: row.notify_url as string | null,
    live: row.live === true,
    secret: row.secret as string,
    paused: row.paused as boolean,
    created_at: row.created_at as string,
    next_run_at: Number(row.next_run_at),
    failures: row.failures as number,
    state: row.state as MonitorRecord['state'],
    baseline_report_id: row.baseline_report_id as string | null,
    last_run: row.last_run === null ? null : (JSON.parse(row.last_run as string) as MonitorRecord['last_run']),
    last_success_at: row.last_success_at as string | null,
  };
  if (row.lease_owner !== null) monitor.lease = { owner: row.lease_owner as string, until: Number(row.lease_until) };
  return Object.freeze(monitor);
};

const runColumns = (what: string, update: MonitorRunUpdate) => ({
  next_run_at: update.next_run_at,
  failures: update.failures,
  state: update.state,
  baseline_report_id: optionalText(what, update.baseline_report_id),
  last_run: update.last_run === null ? null : text(what, encodeRecord(what, update.last_run)),
  last_success_at: optionalText(what, update.last_success_at),
});

/** The monitor as its columns; throws UnstorableRecordError when it cannot be written. */
const rowOf = (m: MonitorRecord) => {
  const what = `monitor ${m.id}`;
  return {
    id: text(what, m.id),
    account_id: text(what, m.account_id),
    url: text(what, m.url),
    // An imported row from before monitors could name their agent has none.
    agent: optionalText(what, m.agent ?? null),
    interval_seconds: m.interval_seconds,
    notify_url: optionalText(what, m.notify_url),
    // An imported row from before monitors could probe has none.
    live: m.live ?? false,
    secret: text(what, m.secret),
    paused: m.paused,
    created_at: text(what, m.created_at),
    lease_owner: optionalText(what, m.lease?.owner),
    lease_until: m.lease?.until ?? null,
    ...runColumns(what, m),
  };
};

/** Stores the row as it is, replacing the one of its id (an import: its account comes in the same import). */
export const writeMonitor = (sql: Queries, m: MonitorRecord) => {
  const row = rowOf(m);
  const { id: _id, ...rest } = row;
  return sql`insert into monitors ${sql(row)} on conflict (id) do update set ${sql(rest)}`;
};

export class PgMonitors implements MonitorsTable {
  constructor(private readonly context: PgContext) {}

  async createMonitor(record: MonitorRecord, max: number): Promise<CreateMonitorOutcome> {
    const row = rowOf(record);
    return this.context.sql.begin(async (tx) => {
      // Counted and inserted under one lock: concurrent creations (on any instance) never pass `max`.
      await tx`select pg_advisory_xact_lock(${CREATE_LOCK}::bigint)`;
      const [account] = await tx`select 1 from accounts where id = ${row.account_id}`;
      if (!account) return 'no-account';
      const [{ n }] = (await tx`select count(*)::int as n from monitors`) as unknown as [{ n: number }];
      if (n >= max) return 'full';
      return (await tx`insert into monitors ${tx(row)} on conflict (id) do nothing`).count === 1 ? 'created' : 'full';
    });
  }
  async getMonitor(id: string): Promise<MonitorRecord | undefined> {
    const [row] = await this.context.sql`select * from monitors where id = ${sought(id)}`;
    return row && monitorFromRow(row);
  }
  async pageMonitors(query: MonitorPageQuery): Promise<Page<MonitorRecord>> {
    const { sql } = this.context;
    const ofAccount = query.account_id === undefined ? sql`true` : sql`account_id = ${sought(query.account_id)}`;
    const after = query.after === undefined ? sql`true` : sql`(id collate "C") > ${sought(query.after.id)}`;
    // Walks monitors_account or monitors_in_order (migration 20): one more row than the page tells whether another follows.
    const rows = await sql`select *, id as sort_key from monitors where ${ofAccount} and ${after} order by (id collate "C") limit ${query.limit + 1}`;
    return pageFrom(rows, query.limit, monitorFromRow);
  }
  async setMonitorPaused(id: string, paused: boolean, nextRunAt: number): Promise<MonitorRecord | undefined> {
    const [row] = await this.context.sql`
      update monitors set paused = ${paused}, next_run_at = case when ${paused} then next_run_at else ${nextRunAt}::bigint end
      where id = ${sought(id)} returning *`;
    return row && monitorFromRow(row);
  }
  async changeMonitor(id: string, change: MonitorChange, runBy: number): Promise<MonitorRecord | undefined> {
    const what = `monitor ${id}`;
    const [row] = await this.context.sql`
      update monitors set agent = ${optionalText(what, change.agent)}, interval_seconds = ${change.interval_seconds},
        notify_url = ${optionalText(what, change.notify_url)}, live = ${change.live}, next_run_at = least(next_run_at, ${runBy}::bigint)
      where id = ${sought(id)} returning *`;
    return row && monitorFromRow(row);
  }
  async deleteMonitor(id: string): Promise<boolean> {
    return (await this.context.sql`delete from monitors where id = ${sought(id)}`).count > 0;
  }
  async claimMonitor(owner: string, now: number): Promise<MonitorRecord | undefined> {
    const [row] = await this.context.sql`
      update monitors set lease_owner = ${text('lease owner', owner)}, lease_until = ${now}::bigint + interval_seconds::bigint * 1000,
        next_run_at = ${now}::bigint + interval_seconds::bigint * 1000
      where id = (
        select id from monitors
        where not paused and next_run_at <= ${now}::bigint and (lease_until is null or lease_until <= ${now}::bigint)
        order by next_run_at, id collate "C"
        limit 1
        for update skip locked
      )
      -- Checked again on the row as it is when locked: a claim that committed meanwhile moved it on.
      and next_run_at <= ${now}::bigint and (lease_until is null or lease_until <= ${now}::bigint)
      returning *`;
    return row && monitorFromRow(row);
  }
  async finishMonitorRun(id: string, owner: string, update: MonitorRunUpdate): Promise<boolean> {
    const { sql } = this.context;
    const set = runColumns(`monitor ${id}`, update);
    const updated = await sql`
      update monitors set ${sql(set)}, lease_owner = null, lease_until = null
      where id = ${sought(id)} and lease_owner = ${sought(owner)}`;
    return updated.count === 1;
  }
}
