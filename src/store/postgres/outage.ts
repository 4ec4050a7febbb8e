/** Telling an outage (the database cannot answer now) from a fault of the statement or the record. */
import postgres from 'postgres';

/** The client's codes for a connection that failed or was lost, and Node's for a server that cannot be reached. */
const CONNECTION_LOST = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
]);

/**
 * SQLSTATE classes of a server that cannot serve now, whatever the statement: 08 connection
 * exception, 40 transaction rollback (serialization failure, deadlock), 53 insufficient resources
 * (too many connections, disk full), 55 object not in prerequisite state (a database closed to
 * connections, a lock not available), 57 operator intervention (statement timeout, shutdown,
 * starting up), 58 system error; and 25006, a write on a read-only server (a standby, mid-failover).
 */
const UNAVAILABLE_STATES = /^(08|40|53|55|57|58)|^25006$/;

/** Whether `e` says the database cannot answer now (rather than that the statement or the record is at fault). */
export const isOutage = (e: unknown): boolean => {
  if (e instanceof postgres.PostgresError) return UNAVAILABLE_STATES.test(e.code);
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CONNECTION_LOST.has(code);
};
