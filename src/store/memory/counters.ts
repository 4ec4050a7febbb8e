/** The counters table (fixed windows) and the usage history it writes, in memory. */
import type { ConsumeOptions, ConsumeResult, Counter, CounterCharge, CountersTable, UsageRow } from '../contract/counters.ts';
import type { AgentReportEntry } from '../contract/agents.ts';
import type { NewReport } from '../contract/report-records.ts';
import { JournaledMap, type Journal } from './journaled.ts';

const copyCounter = (c: Counter): Counter => ({ count: c.count, reset_at: c.reset_at });

export class MemoryCounters implements CountersTable {
  readonly counters: JournaledMap<Counter>;
  /** Counters charged as volatile: never journaled, gone when the process ends. */
  private readonly volatileCounters = new Map<string, Counter>();
  readonly usage: JournaledMap<UsageRow>;

  constructor(
    journal: Journal,
    /** The store's putReport: consume's `report` (and the entries it joins) goes through it. */
    private readonly putReport: (report: NewReport, joins?: readonly AgentReportEntry[]) => Promise<boolean>,
  ) {
    this.counters = new JournaledMap('counters', journal, {
      toDoc: (key, c) => ({ key, ...c }),
      fromDoc: (row) => {
        const c = row as (Counter & { key: string }) | null;
        return [c?.key, c && { count: c.count, reset_at: c.reset_at }];
      },
    });
    this.usage = new JournaledMap('usage', journal, {
      toDoc: (_key, r) => ({ ...r }),
      fromDoc: (row) => {
        const r = row as UsageRow | null;
        return [r && `${r.account_id}|${r.day}`, row];
      },
    });
  }

  async getCounter(key: string, now: number): Promise<Counter | undefined> {
    const c = this.volatileCounters.get(key) ?? this.counters.get(key);
    // An expired counter reads as absent; it leaves the map when charged again or at the next compaction.
    return c && c.reset_at > now ? copyCounter(c) : undefined;
  }

  async consume(charges: CounterCharge[], now: number, options: ConsumeOptions = {}): Promise<ConsumeResult> {
    const current = (key: string) => (options.volatile ? this.volatileCounters.get(key) : this.counters.get(key));
    const before = charges.map((charge): Counter => {
      const c = current(charge.key);
      return c && c.reset_at > now ? c : { count: 0, reset_at: charge.reset_at };
    });
    const refused = charges.findIndex((charge, i) => charge.limit !== -1 && before[i]!.count + charge.amount > charge.limit);
    if (refused !== -1) return { admitted: false, counters: before.map(copyCounter), refused };
    const after = charges.map((charge, i) => ({ count: before[i]!.count + charge.amount, reset_at: before[i]!.reset_at }));
    for (const [i, charge] of charges.entries()) {
      if (options.volatile) this.volatileCounters.set(charge.key, after[i]!);
      else this.counters.set(charge.key, after[i]!);
    }
    if (options.usage && charges.length > 0) {
      const { account_id, day } = options.usage;
      const k = `${account_id}|${day}`;
      this.usage.set(k, { account_id, day, count: (this.usage.get(k)?.count ?? 0) + charges[0]!.amount });
    }
    const counters = after.map(copyCounter);
    if (!options.report) return { admitted: true, counters };
    // Put once the charges are counted: awaiting it lets other calls run, which must see them.
    const reported = await this.putReport(options.report, options.joins).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    return { admitted: true, counters, reported };
  }

  async listUsage(filter: { account_id?: string; since_day?: string } = {}): Promise<UsageRow[]> {
    return [...this.usage.values()]
      .filter((r) => (filter.account_id === undefined || r.account_id === filter.account_id) && (filter.since_day === undefined || r.day >= filter.since_day))
      .map((r) => ({ ...r }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.account_id.localeCompare(b.account_id));
  }

  /** Drops the counters whose window ended at `now` (volatile ones too). */
  compact(now: number): void {
    for (const [key, c] of this.counters.rows) if (c.reset_at <= now) this.counters.delete(key);
    for (const [key, c] of this.volatileCounters) if (c.reset_at <= now) this.volatileCounters.delete(key);
  }
}
