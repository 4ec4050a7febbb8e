/**
 * The report index's columns other than the id and created_at (see report-index.ts), one typed
 * array each, made from the declared columns (reports/columns.ts): text as numbers into one
 * table of distinct texts, numbers as Float64 (NaN for null), booleans as Int8 (-1 for null).
 */
import { type ReportColumn, type ReportColumns } from '../reports/columns.ts';
import { asciiLower } from '../contract/paging.ts';

/** Distinct texts, each numbered once; 0 stands for null (or no text). */
export class TextTable {
  private readonly numbers = new Map<string, number>();
  private readonly texts: Array<string | null> = [null];

  numberOf(text: string | null | undefined): number {
    if (text === null || text === undefined) return 0;
    let no = this.numbers.get(text);
    if (no === undefined) {
      no = this.texts.push(text) - 1;
      this.numbers.set(text, no);
    }
    return no;
  }

  /** The number of `text` if it is in the table (0 for null), else undefined. */
  find(text: string | null): number | undefined {
    return text === null ? 0 : this.numbers.get(text);
  }

  text(no: number): string | null {
    return this.texts[no]!;
  }

  get count(): number {
    return this.texts.length;
  }
}

export const grown = <A extends Float64Array | Uint32Array | Int8Array>(array: A, length: number): A => {
  const bigger = new (array.constructor as new (n: number) => A)(length);
  bigger.set(array);
  return bigger;
};

/** One column's values by position. */
export type StoredColumn =
  | { column: ReportColumn; type: 'text'; values: Uint32Array }
  | { column: ReportColumn; type: 'number'; values: Float64Array }
  | { column: ReportColumn; type: 'boolean'; values: Int8Array };

const stored = (column: ReportColumn): StoredColumn | undefined => {
  if (column.type === 'text') return { column, type: 'text', values: new Uint32Array(0) };
  if (column.type === 'number') return { column, type: 'number', values: new Float64Array(0) };
  if (column.type === 'boolean') return { column, type: 'boolean', values: new Int8Array(0) };
  return undefined; // the id and created_at: the index keeps those itself
};

export class SummaryColumns {
  readonly texts = new TextTable();
  /** Each text lower-cased (ASCII letters), made when first needed: text columns sort and are searched so. */
  private readonly lowerTexts: Array<string | undefined> = [];
  readonly list: StoredColumn[];
  private readonly byName: Map<string, StoredColumn>;
  private readonly writers: Array<(pos: number, summary: Record<string, unknown>) => void>;

  constructor(readonly declared: ReportColumns) {
    this.list = declared.flatMap((c) => stored(c) ?? []);
    this.byName = new Map(this.list.map((s) => [s.column.name, s]));
    this.writers = this.list.map((s) => this.writerOf(s));
  }

  get(name: string): StoredColumn {
    const column = this.byName.get(name);
    if (column === undefined) throw new Error(`the report index has no column ${name}`);
    return column;
  }

  /** A text column's values (text numbers). */
  textValues(name: string): Uint32Array {
    const column = this.get(name);
    if (column.type !== 'text') throw new Error(`report column ${name} is not text`);
    return column.values;
  }

  grow(length: number): void {
    for (const s of this.list) s.values = grown(s.values, length) as never;
  }

  /** Writes the summary's values at `pos`. */
  write(pos: number, summary: Record<string, unknown>): void {
    for (const write of this.writers) write(pos, summary);
  }

  /** A writer per column, each reading its own member (one property lookup site per column, on the path of every report put). */
  private writerOf(s: StoredColumn): (pos: number, summary: Record<string, unknown>) => void {
    const name = s.column.name;
    if (s.type === 'text') return (pos, summary) => void (s.values[pos] = this.texts.numberOf(summary[name] as string | null | undefined));
    if (s.type === 'number') return (pos, summary) => void (s.values[pos] = (summary[name] as number | null | undefined) ?? NaN);
    return (pos, summary) => {
      const value = summary[name];
      s.values[pos] = value === null || value === undefined ? -1 : value ? 1 : 0;
    };
  }

  /** The value at `pos` as the summary holds it (undefined: left out, an optional column with none). */
  valueAt(s: StoredColumn, pos: number): unknown {
    const raw = s.values[pos]!;
    let value: unknown;
    if (s.type === 'text') value = this.texts.text(raw);
    else if (s.type === 'number') value = Number.isNaN(raw) ? null : raw;
    else value = raw === -1 ? null : raw === 1;
    return value === null && s.column.optional ? undefined : value;
  }

  /** The sort key at `pos` (see the types in columns.ts): text lower-cased, null as "" or -1. */
  keyAt(s: StoredColumn, pos: number): string | number {
    if (s.type === 'text') return this.lowerText(s.values[pos]!);
    const n = s.values[pos]!;
    return Number.isNaN(n) ? -1 : n;
  }

  lowerText(no: number): string {
    let lower = this.lowerTexts[no];
    if (lower === undefined) this.lowerTexts[no] = lower = asciiLower(this.texts.text(no) ?? '');
    return lower;
  }
}
