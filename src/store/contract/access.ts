/** Whether a call of a table reads or writes: the PostgreSQL engine flushes after writes (see postgres/postgres-store.ts). */
export type Access = 'read' | 'write';
