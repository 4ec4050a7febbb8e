/** The Store interface held in memory only: for unit tests, never chosen silently at run time. */
import { summarizeReport } from './summary.ts';
import type { Account, ApiKeyRecord, Counter, JobRecord, ReportRecord, ReportSummary, Store, UsageRow } from './types.ts';

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryStore implements Store {
  private accounts = new Map<string, Account>();
  private keys = new Map<string, ApiKeyRecord>();
  private keyIdByHash = new Map<string, string>();
  private counters = new Map<string, Counter>();
  private usage = new Map<string, UsageRow>();
  private reports = new Map<string, ReportRecord>();
  private reportIdByAlias = new Map<string, string>();
  private jobs = new Map<string, JobRecord>();
  private meta = new Map<string, string>();
  /** Number of commit() calls, so tests can see that a path awaited durability. */
  commits = 0;

  createAccount(account: Account): void {
    this.accounts.set(account.id, clone(account));
  }
  getAccount(id: string): Account | undefined {
    const a = this.accounts.get(id);
    return a && clone(a);
  }
  listAccounts(): Account[] {
    return [...this.accounts.values()].map(clone);
  }
  updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Account | undefined {
    const a = this.accounts.get(id);
    if (!a) return undefined;
    Object.assign(a, clone(patch));
    return clone(a);
  }
  deleteAccount(id: string): boolean {
    if (!this.accounts.delete(id)) return false;
    for (const k of [...this.keys.values()]) if (k.account_id === id) this.deleteKey(k.id);
    return true;
  }

  createKey(key: ApiKeyRecord): void {
    this.keys.set(key.id, clone(key));
    this.keyIdByHash.set(key.hash, key.id);
  }
  getKeyByHash(hash: string): ApiKeyRecord | undefined {
    const id = this.keyIdByHash.get(hash);
    return id === undefined ? undefined : this.getKey(id);
  }
  getKey(id: string): ApiKeyRecord | undefined {
    const k = this.keys.get(id);
    return k && clone(k);
  }
  listKeys(accountId?: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter((k) => accountId === undefined || k.account_id === accountId).map(clone);
  }
  updateKey(id: string, patch: Partial<Pick<ApiKeyRecord, 'name' | 'last_used_at' | 'allowed_ips'>>): ApiKeyRecord | undefined {
    const k = this.keys.get(id);
    if (!k) return undefined;
    Object.assign(k, clone(patch));
    return clone(k);
  }
  deleteKey(id: string): boolean {
    const k = this.keys.get(id);
    if (!k) return false;
    this.keys.delete(id);
    this.keyIdByHash.delete(k.hash);
    return true;
  }

  getCounter(key: string, now: number): Counter | undefined {
    const c = this.counters.get(key);
    if (!c) return undefined;
    if (c.reset_at <= now) {
      this.counters.delete(key);
      return undefined;
    }
    return { ...c };
  }
  addToCounter(key: string, amount: number, reset_at: number, now: number): Counter {
    const c = this.getCounter(key, now) ?? { count: 0, reset_at };
    c.count += amount;
    this.counters.set(key, c);
    return { ...c };
  }

  addUsage(account_id: string, day: string, amount: number): void {
    const k = `${account_id}|${day}`;
    const row = this.usage.get(k) ?? { account_id, day, count: 0 };
    row.count += amount;
    this.usage.set(k, row);
  }
  listUsage(filter: { account_id?: string; since_day?: string } = {}): UsageRow[] {
    return [...this.usage.values()]
      .filter((r) => (filter.account_id === undefined || r.account_id === filter.account_id) && (filter.since_day === undefined || r.day >= filter.since_day))
      .map((r) => ({ ...r }))
      .sort((a, b) => a.day.localeCompare(b.day) || a.account_id.localeCompare(b.account_id));
  }

  putReport(report: ReportRecord): void {
    this.reports.set(report.id, clone(report));
    if (report.alias !== undefined) this.reportIdByAlias.set(report.alias, report.id);
  }
  async getReport(idOrAlias: string): Promise<ReportRecord | undefined> {
    const r = this.reports.get(idOrAlias) ?? this.reports.get(this.reportIdByAlias.get(idOrAlias) ?? '');
    return r && clone(r);
  }
  listReports(filter: { limit?: number; account_id?: string } = {}): ReportSummary[] {
    const all = [...this.reports.values()]
      .filter((r) => filter.account_id === undefined || r.account_id === filter.account_id)
      .reverse()
      .map(summarizeReport);
    return filter.limit === undefined ? all : all.slice(0, filter.limit);
  }
  async pruneReports(before: number): Promise<number> {
    let removed = 0;
    for (const [id, r] of this.reports) {
      if (Date.parse(r.created_at) < before) {
        this.reports.delete(id);
        if (r.alias !== undefined && this.reportIdByAlias.get(r.alias) === id) this.reportIdByAlias.delete(r.alias);
        removed++;
      }
    }
    return removed;
  }
  reportCount(): number {
    return this.reports.size;
  }

  putJob(job: JobRecord): void {
    this.jobs.set(job.id, clone(job));
  }
  getJob(id: string): JobRecord | undefined {
    const j = this.jobs.get(id);
    return j && clone(j);
  }
  listUnfinishedJobs(): JobRecord[] {
    return [...this.jobs.values()].filter((j) => j.status === 'queued' || j.status === 'processing').map(clone);
  }

  getMeta(key: string): string | undefined {
    return this.meta.get(key);
  }
  setMeta(key: string, value: string): void {
    this.meta.set(key, value);
  }

  async commit(): Promise<void> {
    this.commits++;
  }
  async close(): Promise<void> {}
}
