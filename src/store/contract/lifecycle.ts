export interface Lifecycle {
  /** Resolves when the store can answer now (the database: one round trip); rejects with StoreUnavailableError when it cannot. */
  ping(): Promise<void>;
  /** Resolves when every mutation made before this call is durable. */
  commit(): Promise<void>;
  /** Flushes and releases resources (the data-dir lock, the database pool). */
  close(): Promise<void>;
}
