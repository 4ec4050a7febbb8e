/** The counters table (fixed windows) and the usage history it writes, on PostgreSQL. */
import type { ConsumeOptions, ConsumeResult, Counter, CounterCharge, CountersTable, UsageRow } from '../contract/counters.ts';
import type { AgentReportEntry } from '../contract/agents.ts';
import type { NewReport } from '../contract/report-records.ts';
import { reportLine } from '../reports/lines.ts';
import type { ReportRow } from './report-statements.ts';
import { entriesJson, recordedEntries } from './agents.ts';
import type { PgContext, WriteNote } from './context.ts';
import { sought, text, type Queries } from './sql.ts';

/** Thrown inside a consume transaction to roll it back: the charge at `index` did not fit. */
class ChargeRefused extends Error {
  constructor(readonly index: number) {
    super('charge refused');
  }
}

export class PgCounters implements CountersTable {
  constructor(
    private readonly context: PgContext,
    /** The store's putReport, for a report put after its charges (see putAfterCharges). */
    private readonly putReport: (report: NewReport, joins?: readonly AgentReportEntry[]) => Promise<boolean>,
  ) {}

  async getCounter(key: string, now: number): Promise<Counter | undefined> {
    const [row] = await this.context.sql`select count, reset_at from counters where key = ${sought(key)} and reset_at > ${now}::bigint`;
    return row && { count: row.count as number, reset_at: row.reset_at as number };
  }

  /** `note`: the store's, told when the statement that stores the report commits durably (see WriteNote). */
  async consume(charges: CounterCharge[], now: number, options: ConsumeOptions = {}, note?: WriteNote): Promise<ConsumeResult> {
    for (const c of charges) text(`counter ${c.key}`, c.key);
    const usage = options.usage && { account_id: text('usage', options.usage.account_id), day: text('usage', options.usage.day) };
    const { report, joins = [] } = options;
    // The report and its entries encoded before anything is sent: one that cannot be written fails itself, not the charges.
    let row: ReportRow | undefined;
    let entries: string | undefined;
    let unstorable: Error | undefined;
    try {
      if (report) [row, entries] = [this.context.reports.row(report, reportLine(report)), entriesJson(joins)];
    } catch (e) {
      unstorable = e as Error;
    }
    if (charges.length === 0) return { admitted: true, counters: [] };
    // Usage grows by the first charge's amount, in the statement or transaction that admits it.
    if (charges.length === 1) {
      // One counter: one statement, usage, the report and its history entries included, committed
      // durably when the store says so (its caller commits next); one with an alias is put after:
      // it takes a transaction.
      const alongside = report?.alias === undefined && row && entries ? { row, entries } : undefined;
      const committed = alongside && note?.durably();
      const rows = await this.chargeOne(charges[0]!, now, usage, alongside, committed !== undefined);
      if (rows.length === 0) return this.refusal(charges, now, 0);
      committed?.();
      const counters = [{ count: rows[0]!.count as number, reset_at: rows[0]!.reset_at as number }];
      if (!report) return { admitted: true, counters };
      return { admitted: true, counters, reported: alongside ? true : await this.putAfterCharges(report, unstorable, joins) };
    }
    // Several: in key order (two calls never wait on each other's rows in opposite orders), all or none.
    const order = charges.map((_, i) => i).sort((a, b) => (charges[a]!.key < charges[b]!.key ? -1 : 1));
    try {
      const counters = await this.context.sql.begin(async (tx) => {
        const after: Counter[] = new Array(charges.length);
        for (const i of order) {
          const [row] = await this.chargeStatement(tx, charges[i]!, now);
          if (!row) throw new ChargeRefused(i);
          after[i] = { count: row.count as number, reset_at: row.reset_at as number };
        }
        if (usage) {
          await tx`insert into usage (account_id, day, count) values (${usage.account_id}, ${usage.day}, ${charges[0]!.amount}::bigint)
            on conflict (account_id, day) do update set count = usage.count + excluded.count`;
        }
        return after;
      });
      return report ? { admitted: true, counters, reported: await this.putAfterCharges(report, unstorable, joins) } : { admitted: true, counters };
    } catch (e) {
      if (e instanceof ChargeRefused) return this.refusal(charges, now, e.index);
      throw e;
    }
  }

  /** The report of an admitted consume put after its charges: putReport's answer, or the error it failed with. */
  private async putAfterCharges(report: NewReport, unstorable: Error | undefined, joins: readonly AgentReportEntry[] | undefined): Promise<boolean | Error> {
    if (unstorable) return unstorable;
    try {
      return await this.putReport(report, joins);
    } catch (e) {
      return e as Error;
    }
  }

  /**
   * Adds the charge to its counter if it fits, starting the counter again when its window has
   * ended: returns the counter's row, or no row when it does not fit (then nothing changed).
   */
  private chargeStatement(sql: Queries, c: CounterCharge, now: number) {
    const fits = c.limit < 0 ? sql`true` : sql`(case when c.reset_at <= ${now}::bigint then 0 else c.count end) + excluded.count <= ${c.limit}::bigint`;
    return sql`
      insert into counters as c (key, count, reset_at)
      select ${c.key}, ${c.amount}::bigint, ${c.reset_at}::bigint where ${c.limit < 0 || c.amount <= c.limit}::boolean
      on conflict (key) do update set
        count = case when c.reset_at <= ${now}::bigint then excluded.count else c.count + excluded.count end,
        reset_at = case when c.reset_at <= ${now}::bigint then excluded.reset_at else c.reset_at end
      where ${fits}
      returning count, reset_at`;
  }

  /**
   * chargeStatement for one counter, with the usage row, the report and its history entries (each
   * when given) written only if the charge fits, in one statement, committed `durably` or not. Its
   * text is the same whatever it writes, so each connection prepares it once: built from fragments
   * per call, the statement cost the server process more time than the answer it sends.
   */
  private chargeOne(c: CounterCharge, now: number, usage: { account_id: string; day: string } | undefined, report: { row: ReportRow; entries: string } | undefined, durably: boolean) {
    const { sql } = this.context;
    return sql`
      with charged as (
        insert into counters as c (key, count, reset_at)
        select ${c.key}, ${c.amount}::bigint, ${c.reset_at}::bigint where ${c.limit < 0 || c.amount <= c.limit}::boolean
        on conflict (key) do update set
          count = case when c.reset_at <= ${now}::bigint then excluded.count else c.count + excluded.count end,
          reset_at = case when c.reset_at <= ${now}::bigint then excluded.reset_at else c.reset_at end
        where ${c.limit}::bigint < 0 or (case when c.reset_at <= ${now}::bigint then 0 else c.count end) + excluded.count <= ${c.limit}::bigint
        returning count, reset_at
      ), used as (
        insert into usage (account_id, day, count) select ${usage?.account_id ?? null}, ${usage?.day ?? null}, ${c.amount}::bigint from charged where ${usage !== undefined}::boolean
        on conflict (account_id, day) do update set count = usage.count + excluded.count
      ), reported as (${this.context.reports.insertIfCharged(sql, report?.row)}
      ), joined as (
        select recorded.id from charged cross join ${recordedEntries(sql, report?.entries ?? '[]')}
      )
      select count, reset_at, (select count(*) from joined) as joined, set_config('synchronous_commit', ${durably ? 'on' : 'off'}, true) from charged`;
  }

  /** A refused consume: every counter as it is (0 when none), and the first charge, in the caller's order, that does not fit. */
  private async refusal(charges: CounterCharge[], now: number, refusedInKeyOrder: number): Promise<ConsumeResult> {
    const rows = await this.context.sql`select key, count, reset_at from counters where key in ${this.context.sql(charges.map((c) => c.key))} and reset_at > ${now}::bigint`;
    const byKey = new Map(rows.map((r) => [r.key as string, { count: r.count as number, reset_at: r.reset_at as number }]));
    const counters = charges.map((c) => byKey.get(c.key) ?? { count: 0, reset_at: c.reset_at });
    const refused = charges.findIndex((c, i) => c.limit >= 0 && counters[i]!.count + c.amount > c.limit);
    return { admitted: false, counters, refused: refused === -1 ? refusedInKeyOrder : refused };
  }

  async listUsage(filter: { account_id?: string; since_day?: string } = {}): Promise<UsageRow[]> {
    const rows = await this.context.sql`
      select account_id, day, count from usage
      where ${filter.account_id === undefined ? this.context.sql`true` : this.context.sql`account_id = ${sought(filter.account_id)}`}
        and ${filter.since_day === undefined ? this.context.sql`true` : this.context.sql`day >= ${sought(filter.since_day)}`}`;
    return rows
      .map((r) => ({ account_id: r.account_id as string, day: r.day as string, count: r.count as number }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.account_id.localeCompare(b.account_id));
  }
}
