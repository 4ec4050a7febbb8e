/**
 * Brings a database's schema up to the migrations this build knows, recorded in
 * `schema_migrations`. Everything runs in one transaction that first takes an advisory lock: two
 * instances starting at once never both migrate (the second waits, then finds nothing to do), and
 * a migration that fails leaves the schema as it was.
 */
import type { Sql } from 'postgres';
import { migrations as known, type Migration } from './migrations.ts';

/** The advisory lock key of migrations (any constant; "cg" in ASCII). */
const MIGRATION_LOCK = 0x6367;

export interface MigrationOutcome {
  /** The migrations applied by this call, in order (none when the schema was up to date). */
  applied: Migration[];
  /** The schema version now (the highest migration recorded). */
  version: number;
}

export const migrate = (sql: Sql, migrations: readonly Migration[] = known): Promise<MigrationOutcome> =>
  sql.begin(async (tx) => {
    // A migration may outlast the per-statement bound on a large table, and so may the wait for another instance's.
    await tx`set local statement_timeout = 0`;
    await tx`set local synchronous_commit = on`; // the pool's default is off (see PostgresStore): a schema change is durable when it resolves
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK}::bigint)`;
    await tx`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`;
    const recorded = new Set((await tx<Array<{ version: number }>>`select version from schema_migrations`).map((r) => r.version));
    const applied: Migration[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (recorded.has(migration.version)) continue;
      await tx.unsafe(migration.sql).simple();
      await tx`insert into schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      recorded.add(migration.version);
      applied.push(migration);
    }
    return { applied, version: Math.max(0, ...recorded) };
  });
