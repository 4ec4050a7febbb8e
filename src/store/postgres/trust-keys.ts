/** The trusted keys table on PostgreSQL. */
import { encodeRecord } from '../contract/encode.ts';
import type { TrustKeyRecord, TrustKeysTable } from '../contract/trust-keys.ts';
import type { PgContext } from './context.ts';
import { optionalText, sought, text, type Queries } from './sql.ts';

export const frozenTrustKey = (row: Record<string, unknown>): TrustKeyRecord =>
  Object.freeze({
    id: row.id as string,
    kid: row.kid as string,
    account_id: row.account_id as string | null,
    jwk: Object.freeze(JSON.parse(row.jwk as string) as Record<string, unknown>),
    jku: row.jku as string | null,
    thumbprint: row.thumbprint as string,
    added_at: row.added_at as string,
    revoked_at: row.revoked_at as string | null,
  });

/**
 * Adds the key; with `replace` (an import) a key of the same id is replaced. Either way a key
 * whose kid another key of its scope has is refused: nothing written, the scope's unique index
 * raising (an import: fails, as it must) or, for an add, no row returned.
 */
export const writeTrustKey = (sql: Queries, key: TrustKeyRecord, replace: boolean) => {
  const what = `trusted key ${key.id}`;
  const row = {
    id: text(what, key.id),
    kid: text(what, key.kid),
    account_id: optionalText(what, key.account_id),
    jwk: text(what, encodeRecord(what, key.jwk)),
    jku: optionalText(what, key.jku),
    thumbprint: text(what, key.thumbprint),
    added_at: text(what, key.added_at),
    revoked_at: optionalText(what, key.revoked_at),
  };
  return replace
    ? sql`
      insert into trust_keys ${sql(row)}
      on conflict (id) do update set kid = excluded.kid, account_id = excluded.account_id, jwk = excluded.jwk, jku = excluded.jku,
        thumbprint = excluded.thumbprint, added_at = excluded.added_at, revoked_at = excluded.revoked_at`
    : sql`insert into trust_keys ${sql(row)} on conflict do nothing returning id`;
};

export class PgTrustKeys implements TrustKeysTable {
  constructor(private readonly context: PgContext) {}

  async addTrustKey(key: TrustKeyRecord): Promise<boolean> {
    return (await writeTrustKey(this.context.sql, key, false)).length > 0;
  }
  async getTrustKey(id: string): Promise<TrustKeyRecord | undefined> {
    const [row] = await this.context.sql`select * from trust_keys where id = ${sought(id)}`;
    return row && frozenTrustKey(row);
  }
  async listTrustKeys(filter: { account_id?: string } = {}): Promise<TrustKeyRecord[]> {
    const { sql } = this.context;
    const rows =
      filter.account_id === undefined
        ? await sql`select * from trust_keys order by added_at collate "C", id collate "C"`
        : await sql`select * from trust_keys where account_id is null or account_id = ${sought(filter.account_id)} order by added_at collate "C", id collate "C"`;
    return rows.map(frozenTrustKey);
  }
  async revokeTrustKey(id: string, at: string): Promise<TrustKeyRecord | undefined> {
    const [row] = await this.context.sql`
      update trust_keys set revoked_at = case when revoked_at is not null and revoked_at collate "C" <= ${text('revocation time', at)} then revoked_at else ${at} end
      where id = ${sought(id)} returning *`;
    return row && frozenTrustKey(row);
  }
  async deleteTrustKey(id: string): Promise<boolean> {
    return (await this.context.sql`delete from trust_keys where id = ${sought(id)}`).count > 0;
  }
}
