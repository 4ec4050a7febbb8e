/** The meta table (small settings) on PostgreSQL. */
import type { MetaTable } from '../contract/meta.ts';
import type { PgContext } from './context.ts';
import { sought, text, type Queries } from './sql.ts';

export const writeMeta = (sql: Queries, key: string, value: string) =>
  sql`insert into meta (key, value) values (${text('meta', key)}, ${text(`meta ${key}`, value)}) on conflict (key) do update set value = excluded.value`;

export class PgMeta implements MetaTable {
  constructor(private readonly context: PgContext) {}

  async getMeta(key: string): Promise<string | undefined> {
    const [row] = await this.context.sql`select value from meta where key = ${sought(key)}`;
    return row?.value as string | undefined;
  }
  async setMeta(key: string, value: string): Promise<void> {
    await writeMeta(this.context.sql, key, value);
  }
  async setMetaIfAbsent(key: string, value: string): Promise<string> {
    const { sql } = this.context;
    const [inserted] = await sql`insert into meta (key, value) values (${text('meta', key)}, ${text(`meta ${key}`, value)}) on conflict (key) do nothing returning value`;
    if (inserted) return inserted.value as string;
    // Read in a statement of its own: its snapshot sees the row of the insert this one gave way to.
    const [found] = await sql`select value from meta where key = ${key}`;
    return found!.value as string;
  }
}
