/** The monitors in memory, by id. Atomic as every memory table is: nothing else runs while a call does. */
import type { CreateMonitorOutcome, MonitorChange, MonitorPageQuery, MonitorRecord, MonitorRunUpdate, MonitorsTable } from '../contract/monitors.ts';
import type { Page } from '../contract/paging.ts';
import { JournaledMap, type Journal } from './journaled.ts';
import { keptRows, pageOf } from './paging.ts';

const isDue = (m: MonitorRecord, now: number): boolean => !m.paused && m.next_run_at <= now && (m.lease === undefined || m.lease.until <= now);

export class MemoryMonitors implements MonitorsTable {
  readonly rows: JournaledMap<MonitorRecord>;

  constructor(
    journal: Journal,
    /** Whether the account exists: a monitor is kept only for one. */
    private readonly hasAccount: (id: string) => boolean,
  ) {
    // A monitor kept before monitors could probe or name their agent (a snapshot, an import) reads as one that does not.
    this.rows = new JournaledMap('monitors', journal, { kept: (m) => Object.freeze({ ...m, live: m.live ?? false, agent: m.agent ?? null }) });
  }

  async createMonitor(record: MonitorRecord, max: number): Promise<CreateMonitorOutcome> {
    if (!this.hasAccount(record.account_id)) return 'no-account';
    if (this.rows.rows.size >= max || this.rows.has(record.id)) return 'full';
    this.rows.set(record.id, record);
    return 'created';
  }
  async getMonitor(id: string): Promise<MonitorRecord | undefined> {
    return this.rows.get(id);
  }
  async pageMonitors(query: MonitorPageQuery): Promise<Page<MonitorRecord>> {
    const { account_id, after, limit } = query;
    const ofAccount = account_id === undefined ? this.rows.values() : keptRows(this.rows.values(), (m) => m.account_id === account_id);
    // Ordered by id alone: the id is the key too. Only the page's rows are kept while reading (pageOf);
    // monitors.max bounds how many are offered.
    return pageOf(ofAccount, { sort: 'id', descending: false, limit, ...(after === undefined ? {} : { after }) }, (m) => m.id, () => true);
  }
  async setMonitorPaused(id: string, paused: boolean, nextRunAt: number): Promise<MonitorRecord | undefined> {
    return this.rows.change(id, (m) => ({ ...m, paused, next_run_at: paused ? m.next_run_at : nextRunAt }));
  }
  async changeMonitor(id: string, change: MonitorChange, runBy: number): Promise<MonitorRecord | undefined> {
    return this.rows.change(id, (m) => ({ ...m, ...change, next_run_at: Math.min(m.next_run_at, runBy) }));
  }
  async deleteMonitor(id: string): Promise<boolean> {
    return this.rows.drop(id);
  }
  async claimMonitor(owner: string, now: number): Promise<MonitorRecord | undefined> {
    let due: MonitorRecord | undefined;
    for (const m of this.rows.values()) {
      if (isDue(m, now) && (due === undefined || m.next_run_at < due.next_run_at || (m.next_run_at === due.next_run_at && m.id < due.id))) due = m;
    }
    return due && this.rows.change(due.id, (m) => {
      const next = now + m.interval_seconds * 1000;
      return { ...m, lease: { owner, until: next }, next_run_at: next };
    });
  }
  async finishMonitorRun(id: string, owner: string, update: MonitorRunUpdate): Promise<boolean> {
    if (this.rows.get(id)?.lease?.owner !== owner) return false;
    this.rows.change(id, ({ lease: _ended, ...m }) => ({ ...m, ...update }));
    return true;
  }

  /** Deletes the account's monitors (its account is being deleted). */
  deleteOfAccount(accountId: string): void {
    for (const m of [...this.rows.values()]) if (m.account_id === accountId) this.rows.delete(m.id);
  }
}
