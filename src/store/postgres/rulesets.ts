/** The accounts' rulesets on PostgreSQL: one row per account, deleted with it (see PgAccounts.deleteAccount). */
import type { AccountRulesetRecord, RulesetsTable } from '../contract/rulesets.ts';
import type { PgContext } from './context.ts';
import { sought, text, type Queries } from './sql.ts';

export const rulesetFromRow = (row: Record<string, unknown>): AccountRulesetRecord =>
  Object.freeze({ account_id: row.account_id as string, text: row.text as string, hash: row.hash as string, updated_at: row.updated_at as string });

const rowOf = (record: AccountRulesetRecord) => {
  const what = `ruleset of account ${record.account_id}`;
  return { account_id: text(what, record.account_id), text: text(what, record.text), hash: text(what, record.hash), updated_at: text(what, record.updated_at) };
};

/** Stores the row as it is, replacing the account's (an import: its account comes in the same import). */
export const writeRuleset = (sql: Queries, record: AccountRulesetRecord) => {
  const row = rowOf(record);
  return sql`
    insert into account_rulesets ${sql(row)}
    on conflict (account_id) do update set text = excluded.text, hash = excluded.hash, updated_at = excluded.updated_at`;
};

export class PgRulesets implements RulesetsTable {
  constructor(private readonly context: PgContext) {}

  /** One statement: the row is written only while the account exists (a concurrent delete either comes first, and nothing is written, or after, and deletes it). */
  async putAccountRuleset(record: AccountRulesetRecord): Promise<boolean> {
    const { sql } = this.context;
    const row = rowOf(record);
    const written = await sql`
      insert into account_rulesets (account_id, text, hash, updated_at)
      select ${row.account_id}, ${row.text}, ${row.hash}, ${row.updated_at} where exists (select 1 from accounts where id = ${row.account_id})
      on conflict (account_id) do update set text = excluded.text, hash = excluded.hash, updated_at = excluded.updated_at
      returning account_id`;
    return written.length > 0;
  }
  async getAccountRuleset(accountId: string): Promise<AccountRulesetRecord | undefined> {
    const [row] = await this.context.sql`select * from account_rulesets where account_id = ${sought(accountId)}`;
    return row && rulesetFromRow(row);
  }
  async deleteAccountRuleset(accountId: string): Promise<boolean> {
    return (await this.context.sql`delete from account_rulesets where account_id = ${sought(accountId)}`).count > 0;
  }
}
