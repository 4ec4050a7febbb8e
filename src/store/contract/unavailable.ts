/**
 * The store cannot answer now: its database is unreachable, refuses connections, or did not
 * answer in time. Nothing the caller sent is at fault, and the same call may succeed once the
 * database is back; a write cut off this way may still have been applied.
 */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  /** How soon a caller may try again: a restart or failover of a database takes seconds. */
  readonly retryAfterSeconds = 5;
}
