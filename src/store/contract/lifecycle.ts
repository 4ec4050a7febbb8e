export interface Lifecycle {
  /** Resolves when the store can answer now (the database: one round trip); rejects with StoreUnavailableError when it cannot. */
  ping(): Promise<void>;
  /** Resolves when every mutation made before this call is durable. */
  commit(): Promise<void>;
  /** Flushes and releases resources (the data-dir lock, the database pool). */
  close(): Promise<void>;
}

/** `value` once every mutation made so far is durable: a use case's answer that says a change happened. */
export const committed = async <T>(store: Pick<Lifecycle, 'commit'>, value: T): Promise<T> => {
  await store.commit();
  return value;
};
