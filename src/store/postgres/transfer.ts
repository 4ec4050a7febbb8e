/** Export and import (see ../transfer.ts) on PostgreSQL. */
import type { TransferRow } from '../transfer.ts';
import { readLine } from '../reports/lines.ts';
import { frozenAccount, writeAccount } from './accounts.ts';
import { jobFromRow, writeJob } from './jobs.ts';
import { frozenKey, writeKey } from './keys.ts';
import { writeMeta } from './meta.ts';
import { KEPT_FOR_AGENT, writeReport } from './reports.ts';
import type { PgContext } from './context.ts';
import { text } from './sql.ts';
import { rulesetFromRow, writeRuleset } from './rulesets.ts';
import { auditFromRow, writeAudit } from './audit.ts';
import { agentFromRow, entryFromRow, writeAgent, writeAgentEntry } from './agents.ts';
import { monitorFromRow, writeMonitor } from './monitors.ts';
import { frozenTrustKey, writeTrustKey } from './trust-keys.ts';

/**
 * One snapshot: every statement reads in one read-only repeatable-read transaction on a
 * connection of its own, so writes going on meanwhile are left out, whole.
 */
export async function* exportRows(context: PgContext): AsyncGenerator<TransferRow> {
  const tx = await context.sql.reserve();
  try {
    await tx`begin transaction isolation level repeatable read read only`;
    for (const row of await tx`select * from accounts order by created_at, id`) yield { table: 'accounts', row: frozenAccount(row) };
    for (const row of await tx`select * from api_keys order by created_at, id`) yield { table: 'keys', row: frozenKey(row) };
    for (const r of await tx`select key, count, reset_at from counters order by key`) {
      yield { table: 'counters', row: { key: r.key as string, count: r.count as number, reset_at: r.reset_at as number } };
    }
    for (const r of await tx`select account_id, day, count from usage order by day collate "C", account_id collate "C"`) {
      yield { table: 'usage', row: { account_id: r.account_id as string, day: r.day as string, count: r.count as number } };
    }
    // Jobs and reports hold whole bodies: read a batch at a time.
    for await (const rows of tx`select * from jobs order by created_at collate "C", id collate "C"`.cursor(100)) {
      for (const row of rows) yield { table: 'jobs', row: jobFromRow(row) };
    }
    for (const r of await tx`select key, value from meta order by key`) yield { table: 'meta', row: { key: r.key as string, value: r.value as string } };
    for (const row of await tx`select * from trust_keys order by added_at collate "C", id collate "C"`) yield { table: 'trust_keys', row: frozenTrustKey(row) };
    for (const row of await tx`select * from account_rulesets order by account_id collate "C"`) yield { table: 'rulesets', row: rulesetFromRow(row) };
    for (const row of await tx`select * from agents order by first_seen collate "C", id collate "C"`) yield { table: 'agents', row: agentFromRow(row) };
    for await (const rows of tx`select * from agent_reports order by agent_id collate "C", created_at collate "C", report_id collate "C"`.cursor(500)) {
      for (const row of rows) yield { table: 'agent_reports', row: entryFromRow(row) };
    }
    for (const row of await tx`select * from monitors order by id collate "C"`) yield { table: 'monitors', row: monitorFromRow(row) };
    for await (const rows of tx`select record from audit_log order by at collate "C", id collate "C"`.cursor(500)) {
      for (const row of rows) yield { table: 'audit', row: auditFromRow(row) };
    }
    const notBefore = context.retentionMs === undefined ? undefined : context.clock.now() - context.retentionMs;
    const reports = notBefore === undefined ? tx`select body from reports order by seq` : tx`select body from reports where created_ms >= ${notBefore}::bigint or ${tx.unsafe(KEPT_FOR_AGENT)} order by seq`;
    for await (const rows of reports.cursor(100)) {
      for (const row of rows) yield { table: 'reports', line: row.body as string };
    }
  } finally {
    // Ends the transaction whether the reader finished or stopped early (a client gone).
    await tx`rollback`.catch(() => undefined);
    tx.release();
  }
}

/** Stores the rows in one transaction: an import that fails on a row keeps none. */
export const importRows = async (context: PgContext, rows: AsyncIterable<TransferRow>): Promise<void> => {
  await context.sql.begin(async (tx) => {
    for await (const r of rows) {
      if (r.table === 'accounts') await writeAccount(tx, r.row);
      else if (r.table === 'keys') await writeKey(tx, r.row);
      else if (r.table === 'counters') {
        await tx`insert into counters (key, count, reset_at) values (${text('counter', r.row.key)}, ${r.row.count}::bigint, ${r.row.reset_at}::bigint)
          on conflict (key) do update set count = excluded.count, reset_at = excluded.reset_at`;
      } else if (r.table === 'usage') {
        const { account_id, day, count } = r.row;
        await tx`insert into usage (account_id, day, count) values (${text('usage', account_id)}, ${text('usage', day)}, ${count}::bigint)
          on conflict (account_id, day) do update set count = excluded.count`;
      } else if (r.table === 'jobs') await writeJob(tx, r.row);
      else if (r.table === 'meta') await writeMeta(tx, r.row.key, r.row.value);
      else if (r.table === 'trust_keys') await writeTrustKey(tx, r.row, true);
      else if (r.table === 'rulesets') await writeRuleset(tx, r.row);
      else if (r.table === 'audit') await writeAudit(tx, r.row, true);
      else if (r.table === 'agents') await writeAgent(tx, r.row);
      else if (r.table === 'agent_reports') await writeAgentEntry(tx, r.row);
      else if (r.table === 'monitors') await writeMonitor(tx, r.row);
      else await writeReport(tx, context.reports, readLine(r.line), r.line);
    }
  });
};

