/** The API keys table on PostgreSQL. */
import type { ApiKeyRecord, KeyAndAccount, KeyPatch, KeysTable } from '../contract/keys.ts';
import { frozenAccount } from './accounts.ts';
import type { PgContext } from './context.ts';
import { optionalText, sought, soughtAll, text, type Queries } from './sql.ts';
import { frozenTrustKey } from './trust-keys.ts';
import { rulesetFromRow } from './rulesets.ts';

export const frozenKey = (row: Record<string, unknown>): ApiKeyRecord =>
  Object.freeze({
    id: row.id as string,
    account_id: row.account_id as string,
    name: row.name as string,
    hash: row.hash as string,
    hint: row.hint as string,
    created_at: row.created_at as string,
    last_used_at: row.last_used_at as string | null,
    allowed_ips: Object.freeze([...(row.allowed_ips as string[])]) as string[],
    // Null columns are left out, as a record without them was put (keys made before expiry existed).
    ...(row.expires_at != null ? { expires_at: row.expires_at as string } : {}),
    ...(row.previous_hash != null ? { previous_hash: row.previous_hash as string, previous_expires_at: row.previous_expires_at as string | null } : {}),
  });

export const writeKey = (sql: Queries, key: ApiKeyRecord) => {
  const what = `key ${key.id}`;
  return sql`
    insert into api_keys (id, account_id, name, hash, hint, created_at, last_used_at, allowed_ips, expires_at, previous_hash, previous_expires_at)
    values (${text(what, key.id)}, ${text(what, key.account_id)}, ${text(what, key.name)}, ${text(what, key.hash)}, ${text(what, key.hint)},
      ${text(what, key.created_at)}, ${optionalText(what, key.last_used_at)}, ${sql.json(key.allowed_ips)},
      ${optionalText(what, key.expires_at)}, ${optionalText(what, key.previous_hash)}, ${optionalText(what, key.previous_expires_at)})
    on conflict (id) do update set account_id = excluded.account_id, name = excluded.name, hash = excluded.hash, hint = excluded.hint,
      created_at = excluded.created_at, last_used_at = excluded.last_used_at, allowed_ips = excluded.allowed_ips,
      expires_at = excluded.expires_at, previous_hash = excluded.previous_hash, previous_expires_at = excluded.previous_expires_at`;
};

export class PgKeys implements KeysTable {
  constructor(private readonly context: PgContext) {}

  async getKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.context.sql`select * from api_keys where hash = ${sought(hash)} or previous_hash = ${sought(hash)} limit 1`;
    return row && frozenKey(row);
  }
  async getKeyAndAccount(hash: string): Promise<KeyAndAccount | undefined> {
    // The account's trusted keys and ruleset in the same statement: a keyed validation needs them
    // before its card is validated, and each statement of their own cost the server process about
    // a sixth of its time per request.
    const [row] = await this.context.sql`
      select k.*, a.name as account_name, a.plan as account_plan, a.created_at as account_created_at,
        (select coalesce(json_agg(t order by t.added_at collate "C", t.id collate "C"), '[]')::text
          from trust_keys t where t.account_id is null or t.account_id = k.account_id) as trust_keys,
        r.text as ruleset_text, r.hash as ruleset_hash, r.updated_at as ruleset_updated_at
      from api_keys k join accounts a on a.id = k.account_id left join account_rulesets r on r.account_id = k.account_id
      where k.hash = ${sought(hash)} or k.previous_hash = ${sought(hash)} limit 1`;
    if (!row) return undefined;
    const found: KeyAndAccount = {
      key: frozenKey(row),
      account: frozenAccount({ id: row.account_id, name: row.account_name, plan: row.account_plan, created_at: row.account_created_at }),
      trustKeys: (JSON.parse(row.trust_keys as string) as Record<string, unknown>[]).map(frozenTrustKey),
    };
    if (row.ruleset_hash !== null) found.ruleset = rulesetFromRow({ account_id: row.account_id, text: row.ruleset_text, hash: row.ruleset_hash, updated_at: row.ruleset_updated_at });
    return found;
  }
  async createKey(key: ApiKeyRecord): Promise<void> {
    await writeKey(this.context.sql, key);
  }
  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    const [row] = await this.context.sql`select * from api_keys where id = ${sought(id)}`;
    return row && frozenKey(row);
  }
  async listKeys(accountIds?: string | readonly string[]): Promise<ApiKeyRecord[]> {
    const { sql } = this.context;
    const rows =
      accountIds === undefined
        ? await sql`select * from api_keys order by created_at, id`
        : await sql`select * from api_keys where account_id = any(${soughtAll(typeof accountIds === 'string' ? [accountIds] : accountIds)}::text[]) order by created_at, id`;
    return rows.map(frozenKey);
  }
  async updateKey(id: string, patch: KeyPatch, ifHash?: string): Promise<ApiKeyRecord | undefined> {
    const { sql } = this.context;
    const what = `key ${id}`;
    const set: Record<string, unknown> = {};
    if (patch.allowed_ips !== undefined) set.allowed_ips = sql.json(patch.allowed_ips);
    for (const column of ['name', 'hash', 'hint'] as const) if (patch[column] !== undefined) set[column] = text(what, patch[column]);
    for (const column of ['last_used_at', 'expires_at', 'previous_hash', 'previous_expires_at'] as const) {
      if (patch[column] !== undefined) set[column] = optionalText(what, patch[column]);
    }
    if (Object.keys(set).length === 0) {
      const key = await this.getKey(id);
      return ifHash === undefined || key?.hash === ifHash ? key : undefined;
    }
    const [row] =
      ifHash === undefined
        ? await sql`update api_keys set ${sql(set)} where id = ${sought(id)} returning *`
        : await sql`update api_keys set ${sql(set)} where id = ${sought(id)} and hash = ${sought(ifHash)} returning *`;
    return row && frozenKey(row);
  }
  async deleteKey(id: string): Promise<boolean> {
    return (await this.context.sql`delete from api_keys where id = ${sought(id)}`).count > 0;
  }
}
