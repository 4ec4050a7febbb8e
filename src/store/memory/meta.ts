/** The meta table (small settings) in memory. */
import type { MetaTable } from '../contract/meta.ts';
import { JournaledMap, type Journal } from './journaled.ts';

export class MemoryMeta implements MetaTable {
  readonly rows: JournaledMap<string>;

  constructor(journal: Journal) {
    this.rows = new JournaledMap('meta', journal, {
      toDoc: (key, value) => ({ key, value }),
      fromDoc: (row) => {
        const m = row as { key: string; value: string } | null;
        return [m?.key, m?.value];
      },
    });
  }

  async getMeta(key: string): Promise<string | undefined> {
    return this.rows.get(key);
  }
  async setMeta(key: string, value: string): Promise<void> {
    this.rows.set(key, value);
  }
  async setMetaIfAbsent(key: string, value: string): Promise<string> {
    const stored = this.rows.get(key);
    if (stored !== undefined) return stored;
    this.rows.set(key, value);
    return value;
  }
}
