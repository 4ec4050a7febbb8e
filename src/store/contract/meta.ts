import type { Access } from './access.ts';

/** Small settings (e.g. the admin token hash). */
export interface MetaTable {
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /**
   * Stores `value` unless the key holds one already, in one atomic step (instances starting at
   * once agree on one value): resolves the value stored, this one or the one found.
   */
  setMetaIfAbsent(key: string, value: string): Promise<string>;
}

export const META_CALLS: Record<keyof MetaTable, Access> = { getMeta: 'read', setMeta: 'write', setMetaIfAbsent: 'write' };
