/** The accounts table on PostgreSQL. */
import type { Account, AccountSortField, AccountsTable } from '../contract/accounts.ts';
import type { Page, PageQuery } from '../contract/paging.ts';
import { pageFrom, pageRows, type Listing } from './paging.ts';
import type { PgContext } from './context.ts';
import { asciiLowerSql, sought, soughtAll, text, type Queries } from './sql.ts';

export const frozenAccount = (row: Record<string, unknown>): Account =>
  Object.freeze({ id: row.id as string, name: row.name as string, plan: row.plan as Account['plan'], created_at: row.created_at as string });

/** The account listing: the keys of accountSortKey (memory/paging.ts), as the sort indexes of migration 2 write them. */
const LISTING: Listing = {
  table: 'accounts',
  columns: '*',
  sortKeys: { name: `(${asciiLowerSql('name')} collate "C")`, plan: '(plan collate "C")', created_at: '(created_at collate "C")' } satisfies Record<AccountSortField, string>,
  searched: ['name', 'id'],
};

export const writeAccount = (sql: Queries, account: Account) => {
  const what = `account ${account.id}`;
  const row = { id: text(what, account.id), name: text(what, account.name), plan: text(what, account.plan), created_at: text(what, account.created_at) };
  return sql`
    insert into accounts ${sql(row)}
    on conflict (id) do update set name = excluded.name, plan = excluded.plan, created_at = excluded.created_at`;
};

export class PgAccounts implements AccountsTable {
  constructor(private readonly context: PgContext) {}

  async createAccount(account: Account): Promise<void> {
    await writeAccount(this.context.sql, account);
  }
  async getAccount(id: string): Promise<Account | undefined> {
    const [row] = await this.context.sql`select * from accounts where id = ${sought(id)}`;
    return row && frozenAccount(row);
  }
  async listAccounts(ids?: readonly string[]): Promise<Account[]> {
    const { sql } = this.context;
    const among = ids === undefined ? sql`true` : sql`id = any(${soughtAll(ids)}::text[])`;
    return (await sql`select * from accounts where ${among} order by created_at, id`).map(frozenAccount);
  }
  async pageAccounts(query: PageQuery<AccountSortField>): Promise<Page<Account>> {
    const { sql } = this.context;
    return pageFrom(await pageRows(sql, query, LISTING, sql`true`), query.limit, frozenAccount);
  }
  async updateAccount(id: string, patch: Partial<Omit<Account, 'id' | 'created_at'>>): Promise<Account | undefined> {
    const { sql } = this.context;
    const set: Record<string, string> = {};
    if (patch.name !== undefined) set.name = text(`account ${id}`, patch.name);
    if (patch.plan !== undefined) set.plan = patch.plan;
    if (Object.keys(set).length === 0) return this.getAccount(id);
    const [row] = await sql`update accounts set ${sql(set)} where id = ${sought(id)} returning *`;
    return row && frozenAccount(row);
  }
  async deleteAccount(id: string): Promise<boolean> {
    const [row] = await this.context.sql`
      with gone as (delete from accounts where id = ${sought(id)} returning id),
        keys as (delete from api_keys where account_id in (select id from gone)),
        trusted as (delete from trust_keys where account_id in (select id from gone)),
        rulesets as (delete from account_rulesets where account_id in (select id from gone)),
        gone_agents as (delete from agents where account_id in (select id from gone) returning id),
        history as (delete from agent_reports where agent_id in (select id from gone_agents)),
        lanes as (delete from agent_lanes where id in (select id from gone_agents)),
        monitors as (delete from monitors where account_id in (select id from gone))
      select count(*)::int as n from gone`;
    return row!.n > 0;
  }
}
