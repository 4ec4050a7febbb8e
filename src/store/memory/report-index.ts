/**
 * The summary of every stored report (see summary.ts), kept in memory for listing, paging and
 * counting without reading report bodies, and where each report is kept (`place`: the file
 * store's segment number).
 *
 * Kept as columns of typed arrays, not as an object and an id string per report: a server keeps
 * one summary for every report of its retention period (hundreds of thousands), and small objects
 * that live for days, promoted among the requests' short-lived garbage, leave the JavaScript heap
 * fragmented and growing under load. Here a report costs about 80 bytes outside that heap, and
 * the heap holds only the distinct texts (accounts, agent names, aliases, kinds). A page walks a
 * sorted order of the positions (report-order.ts, 4 bytes a report per sort asked for) from its
 * cursor, and `q` searches with report-search.ts: at a million reports a page costs what the
 * page holds, not a sort of every report.
 */
import { asciiLower } from '../contract/paging.ts';
import { pageOfReports } from './paging.ts';
import { SortedOrder, type PositionCompare } from './report-order.ts';
import { ReportSearch, type SearchedColumns } from './report-search.ts';
import { REPORT_COLUMNS, searchedColumns, type ReportColumns, type ReportSummary } from '../reports/columns.ts';
import { summarizeReport } from '../reports/summary.ts';
import { SummaryColumns, grown, type StoredColumn } from './index-columns.ts';
import type { NewReport } from '../contract/report-records.ts';
import type { Page, PagePosition } from '../contract/paging.ts';
import type { ReportPageQuery } from '../contract/reports.ts';
import type { KeptReports } from '../contract/agents.ts';

/**
 * Rows a page with `q` tests one by one while walking the sorted order before it searches every
 * report at once instead (see report-search.ts): a `q` that matches many fills its page long
 * before, one that matches few is found faster by the search.
 */
const WALK_TESTS = 20_000;
/** Matches of a `q` that a page sorts among themselves rather than finding them in the sort's order. */
const FEW_MATCHES = 5_000;
/** Positions past a sort's order from which prepare() sorts them all anew in slices (see report-order.ts) rather than at once. */
const SLICE_FROM = 20_000;

const compareValues = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

/** A Latin-1 text (every id the service makes) is kept as one byte a character; others whole (see `odd`). */
const LATIN1 = /^[\0-\xff]*$/;
/** The ISO form `Date#toISOString` gives for years 0-9999, whose text order is time order. */
const canonicalMs = (text: string): number | undefined => {
  const ms = Date.parse(text);
  return ms >= -62167219200000 && ms <= 253402300799999 && new Date(ms).toISOString() === text ? ms : undefined;
};

const hashOf = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

/**
 * Resolves once the index that `current` gives (a prune replaces it) can answer a page sorted by
 * `field` at once (see ReportIndex.prepare).
 */
export const prepareIndex = async (current: () => ReportIndex, field: string): Promise<void> => {
  while (!current().ready(field)) await current().prepare(field);
};

export class ReportIndex {
  /** Reports indexed; positions 0..size-1 in put order (a re-put report keeps its position). */
  private size = 0;
  /** Each id's characters at idStart[pos]..idStart[pos + 1] of `idBytes` (none for an odd id). */
  private idBytes = Buffer.allocUnsafeSlow(0);
  private idStart = new Uint32Array(1);
  /** Ids and created_at texts that the columns cannot hold exactly, by position (rare: imported reports). */
  private readonly oddIds = new Map<number, string>();
  private readonly oddCreatedAt = new Map<number, string>();
  /** Open addressing on the id's hash: position + 1, 0 when free; at most half full. */
  private slots = new Int32Array(0);
  private createdMs = new Float64Array(0);
  /** The other columns declared (see index-columns.ts). */
  private readonly columns: SummaryColumns;
  /** The text columns `q` searches, and whether it searches the ids (see report-search.ts). */
  private readonly searchedText: StoredColumn[];
  private readonly searchesIds: boolean;
  private places = new Uint32Array(0);
  /** Positions re-put since the index was made, in order (their keys may have changed): the sorted orders place them anew. */
  private readonly moved: number[] = [];
  /** The positions sorted by each listing key, made when a page first asks for one. */
  private orders: Partial<Record<string, SortedOrder>> = {};
  private readonly search = new ReportSearch();
  /** See fewPositions. */
  private few: { key: string; positions: number[] | null; upTo: number; movedSeen: number } | undefined;

  /**
   * `bounds`: see WALK_TESTS, FEW_MATCHES and SLICE_FROM (tests make them small to reach every way
   * of paging); `declared`: the report columns (reports/columns.ts; tests add some).
   */
  constructor(
    private readonly bounds = { walkTests: WALK_TESTS, fewMatches: FEW_MATCHES, sliceFrom: SLICE_FROM },
    private readonly declared: ReportColumns = REPORT_COLUMNS,
  ) {
    this.columns = new SummaryColumns(declared);
    const searched = searchedColumns(declared);
    this.searchedText = searched.filter((c) => c.type === 'text').map((c) => this.columns.get(c.name));
    this.searchesIds = searched.some((c) => c.type === 'id');
  }

  count(): number {
    return this.size;
  }

  /** The position of report `id`, or undefined. */
  positionOf(id: string): number | undefined {
    if (this.size === 0) return undefined;
    const mask = this.slots.length - 1;
    for (let slot = hashOf(id) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot]!;
      if (entry === 0) return undefined;
      if (this.idIs(entry - 1, id)) return entry - 1;
    }
  }

  /** Where report `pos` is kept. */
  place(pos: number): number {
    return this.places[pos]!;
  }

  /** Indexes `report`, kept in `place`; a known id keeps its position. */
  put(report: NewReport, place: number): void {
    this.putSummary(summarizeReport(report, this.declared), place);
  }

  idAt(pos: number): string {
    return this.oddIds.get(pos) ?? this.idBytes.toString('latin1', this.idStart[pos]!, this.idStart[pos + 1]!);
  }

  aliasAt(pos: number): string | undefined {
    return this.columns.texts.text(this.columns.textValues('alias')[pos]!) ?? undefined;
  }

  /** Epoch ms of the report's created_at (NaN if it is no date). */
  createdMsAt(pos: number): number {
    return this.createdMs[pos]!;
  }

  summaryAt(pos: number): ReportSummary {
    const summary: Record<string, unknown> = {};
    for (const c of this.declared) {
      const value =
        c.type === 'id'
          ? this.idAt(pos)
          : c.type === 'time'
            ? (this.oddCreatedAt.get(pos) ?? new Date(this.createdMs[pos]!).toISOString())
            : this.columns.valueAt(this.columns.get(c.name), pos);
      if (value !== undefined) summary[c.name] = value;
    }
    return summary as ReportSummary;
  }

  /**
   * The page `query` asks for among the reports created at or after `notBeforeMs`: a walk of the
   * sort's order (see report-order.ts) from the cursor, in the direction asked, that keeps the rows
   * passing the filters until the page is full; only the page's summaries are made. Dates are
   * placed as epoch ms when every one is in ISO form (whose order is the texts'); otherwise, a
   * rare import, by their texts over every summary.
   */
  page(query: ReportPageQuery, notBeforeMs: number): Page<ReportSummary> {
    const byDate = query.sort === 'created_at';
    const afterMs = byDate && query.after ? (typeof query.after.key === 'string' ? canonicalMs(query.after.key) : undefined) : undefined;
    if (byDate && (this.oddCreatedAt.size > 0 || (query.after && afterMs === undefined))) {
      const rows: ReportSummary[] = [];
      for (let pos = 0; pos < this.size; pos++) if (this.createdMs[pos]! >= notBeforeMs) rows.push(this.summaryAt(pos));
      return pageOfReports(rows, query, this.declared);
    }
    const found = this.walk(query, afterMs === undefined ? query.after : { key: afterMs, id: query.after!.id }, notBeforeMs);
    const out: Page<ReportSummary> = { items: found.slice(0, query.limit).map((pos) => this.summaryAt(pos)) };
    if (found.length > query.limit) {
      const last = found[query.limit - 1]!;
      const key = this.keyAt(last, query.sort);
      out.next = { key: byDate ? new Date(key).toISOString() : key, id: this.idAt(last) };
    }
    return out;
  }

  /**
   * Resolves when page() can answer a query sorted by `field` at once: the first page of a sort
   * (and one after a large import) waits for its order, sorted without holding the event loop.
   */
  prepare(field: string): Promise<void> {
    const order = (this.orders[field] ??= new SortedOrder(this.compareBy(field)));
    return order.prepare(() => this.size, this.moved, this.bounds.sliceFrom);
  }

  /** Whether page() answers a query sorted by `field` at once (else: prepare() first). */
  ready(field: string): boolean {
    return this.orders[field]?.ready(this.size, this.bounds.sliceFrom) ?? this.size < this.bounds.sliceFrom;
  }

  /**
   * Up to limit + 1 positions of the page, in its order (see page). An account's few reports are
   * sorted among themselves, else the sort's order is walked from the cursor. With `q`: the order walked,
   * each row tested, for at most `walkTests` rows; past them (a `q` that matches few), every
   * report's answer (see report-search.ts): a few matches are sorted among themselves, many are
   * walked again in the order, each now a lookup.
   */
  private walk(query: ReportPageQuery, after: PagePosition | undefined, notBeforeMs: number): number[] {
    const account = query.account_id === undefined ? undefined : this.columns.texts.find(query.account_id);
    if (account === undefined && query.account_id !== undefined) return [];
    const accounts = this.columns.textValues('account_id');
    const listed = (pos: number) => (account === undefined || accounts[pos] === account) && this.createdMs[pos]! >= notBeforeMs;
    const q = query.q ? asciiLower(query.q) : undefined;
    if (q === undefined && account !== undefined) {
      // An account's reports, when they are few, are sorted among themselves.
      const few = this.fewPositions(`a${account}`, (pos) => accounts[pos] === account);
      if (few !== null) return this.sortedAmong(few.filter(listed), query, after);
    }
    const { order, length } = this.orderOf(query.sort);
    if (q === undefined) return this.collect(order, length, query, after, listed, Infinity).found;
    const columns = this.searched();
    let matches = this.search.known(columns, q, this.moved);
    if (matches === undefined) {
      const test = this.search.test(columns, q);
      const walked = this.collect(order, length, query, after, (pos) => listed(pos) && test(pos), this.bounds.walkTests);
      if (walked.complete) return walked.found;
      matches = this.search.all(columns, q, this.moved);
    }
    const { found: bitmap, count } = matches;
    const few = count > this.bounds.fewMatches ? null : this.fewPositions(`q${q}`, (pos) => bitmap[pos] === 1);
    if (few !== null) return this.sortedAmong(few.filter(listed), query, after);
    return this.collect(order, length, query, after, (pos) => bitmap[pos] === 1 && listed(pos), Infinity).found;
  }

  /**
   * The positions that `selects`, when there are at most `fewMatches` (else null), for the
   * selection named `key`: the last one's kept, only the reports put since tested (all again
   * once a report is put again), so the next pages of one account or one `q` cost no pass over
   * every report.
   */
  private fewPositions(key: string, selects: (pos: number) => boolean): number[] | null {
    let few = this.few;
    if (few?.key !== key || few.movedSeen !== this.moved.length) {
      few = this.few = { key, positions: [], upTo: 0, movedSeen: this.moved.length };
    }
    for (let pos = few.upTo; pos < this.size && few.positions !== null; pos++) {
      if (selects(pos) && few.positions.push(pos) > this.bounds.fewMatches) few.positions = null;
    }
    few.upTo = this.size;
    return few.positions;
  }

  /** The page out of a few positions (every one the page may hold), sorted among themselves. */
  private sortedAmong(few: number[], query: ReportPageQuery, after: PagePosition | undefined): number[] {
    const sorted = Uint32Array.from(few).sort(this.compareBy(query.sort));
    return this.collect(sorted, sorted.length, query, after, () => true, Infinity).found;
  }

  /**
   * Up to limit + 1 positions that `keep` keeps, from `order` (ascending) past the cursor, in the
   * direction asked; `complete` unless `budget` rows were tested first.
   */
  private collect(
    order: Uint32Array,
    length: number,
    query: ReportPageQuery,
    after: PagePosition | undefined,
    keep: (pos: number) => boolean,
    budget: number,
  ): { found: number[]; complete: boolean } {
    // The first row past the cursor: in the order, the first one after it (ascending) or the last one before it.
    let lo = 0;
    let hi = length;
    while (after && lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compareTo(order[mid]!, query.sort, after);
      if (c < 0 || (c === 0 && !query.descending)) lo = mid + 1;
      else hi = mid;
    }
    const step = query.descending ? -1 : 1;
    const found: number[] = [];
    let i = after ? (query.descending ? lo - 1 : lo) : query.descending ? length - 1 : 0;
    for (let tested = 0; i >= 0 && i < length && found.length <= query.limit; i += step) {
      if (++tested > budget) return { found, complete: false };
      if (keep(order[i]!)) found.push(order[i]!);
    }
    return { found, complete: true };
  }

  /** The sort key of report `pos` (see reportSortKey in paging.ts; dates as epoch ms). */
  private keyAt(pos: number, field: string): string | number {
    return field === 'created_at' ? this.createdMs[pos]! : this.columns.keyAt(this.sortColumn(field), pos);
  }

  /** The column of a sortable field. */
  private sortColumn(field: string): StoredColumn {
    const column = this.columns.get(field);
    if (!column.column.sortable) throw new Error(`report column ${field} is not sortable`);
    return column;
  }

  /** Report `pos` against a cursor's position in the order of `field`. */
  private compareTo(pos: number, field: string, at: PagePosition): number {
    const byKey = compareValues(this.keyAt(pos, field), at.key);
    return byKey !== 0 ? byKey : compareValues(this.idAt(pos), at.id);
  }

  private orderOf(field: string): { order: Uint32Array; length: number } {
    const order = (this.orders[field] ??= new SortedOrder(this.compareBy(field)));
    return order.current(this.size, this.moved);
  }

  /** The order of `field` between two reports: by key (see keyAt), then by id. */
  private compareBy(field: string): PositionCompare {
    if (field !== 'created_at' && this.sortColumn(field).type === 'text') {
      const column = this.sortColumn(field);
      return (a, b) => compareValues(this.columns.lowerText(column.values[a]!), this.columns.lowerText(column.values[b]!)) || this.compareIds(a, b);
    }
    // A date that is no date (NaN) sorts first, so that the order is total; such dates are listed by their text (see page).
    const column = field === 'created_at' ? { values: this.createdMs } : this.sortColumn(field);
    const missing = field === 'created_at' ? -Infinity : -1;
    return (a, b) => {
      const values = column.values; // read at each call: the arrays grow
      const x = values[a]!;
      const y = values[b]!;
      return compareValues(Number.isNaN(x) ? missing : x, Number.isNaN(y) ? missing : y) || this.compareIds(a, b);
    };
  }

  /** Two reports' ids in JavaScript's string order (code units: for Latin-1 text, its bytes). */
  private compareIds(a: number, b: number): number {
    const sa = this.idStart[a]!;
    const ea = this.idStart[a + 1]!;
    const sb = this.idStart[b]!;
    const eb = this.idStart[b + 1]!;
    if (sa === ea || sb === eb) return compareValues(this.idAt(a), this.idAt(b)); // perhaps an odd id
    const bytes = this.idBytes;
    const n = Math.min(ea - sa, eb - sb);
    for (let i = 0; i < n; i++) {
      const d = bytes[sa + i]! - bytes[sb + i]!;
      if (d !== 0) return d;
    }
    return ea - sa - (eb - sb);
  }

  /** The columns as the search reads them now. */
  private searched(): SearchedColumns {
    return {
      size: this.size,
      idBytes: this.idBytes,
      idStart: this.idStart,
      oddIds: this.oddIds,
      named: this.searchedText.map((c) => c.values as Uint32Array),
      ids: this.searchesIds,
      textCount: this.columns.texts.count,
      lowerText: (no) => this.columns.lowerText(no),
    };
  }

  /**
   * The index without the reports created before `before` (epoch ms) but those of `keptReports`,
   * each handed to `removed` first: a new index (texts no longer used left behind), or this one when none is. The sorted
   * orders made so far are kept, without the reports removed.
   */
  createdSince(before: number, removed: (id: string, alias: string | undefined, place: number) => void, keptReports?: KeptReports): ReportIndex {
    const newPosition = new Int32Array(this.size).fill(-1);
    let kept = 0;
    for (let pos = 0; pos < this.size; pos++) {
      if (this.createdMs[pos]! >= before || keptReports?.has(this.idAt(pos))) newPosition[pos] = kept++;
      else removed(this.idAt(pos), this.aliasAt(pos), this.places[pos]!);
    }
    if (kept === this.size) return this;
    const index = new ReportIndex(this.bounds, this.declared);
    for (let pos = 0; pos < this.size; pos++) if (newPosition[pos]! >= 0) index.putSummary(this.summaryAt(pos), this.places[pos]!);
    for (const [field, order] of Object.entries(this.orders) as Array<[string, SortedOrder]>) {
      if (order.ready(this.size, this.bounds.sliceFrom)) index.orders[field] = order.remapped(this.size, this.moved, newPosition, index.compareBy(field));
    }
    return index;
  }

  private putSummary(s: ReportSummary, place: number): void {
    let pos = this.positionOf(s.id);
    if (pos === undefined) {
      pos = this.size;
      this.reserve(pos + 1);
      this.appendId(pos, s.id);
      this.size++;
      this.slotIn(pos, s.id);
    } else {
      this.moved.push(pos);
    }
    this.places[pos] = place;
    const ms = canonicalMs(s.created_at);
    if (ms === undefined) this.oddCreatedAt.set(pos, s.created_at);
    else this.oddCreatedAt.delete(pos);
    this.createdMs[pos] = ms ?? Date.parse(s.created_at);
    this.columns.write(pos, s as Record<string, unknown>);
  }

  /** Room for `n` reports in every column (and a hash table at most half full). */
  private reserve(n: number): void {
    if (n > this.createdMs.length) {
      const length = Math.max(1024, this.createdMs.length * 2);
      this.createdMs = grown(this.createdMs, length);
      this.columns.grow(length);
      this.places = grown(this.places, length);
      this.idStart = grown(this.idStart, length + 1);
    }
    if (2 * n > this.slots.length) {
      this.slots = new Int32Array(Math.max(2048, this.slots.length * 2));
      for (let pos = 0; pos < this.size; pos++) this.slotIn(pos, this.idAt(pos));
    }
  }

  private appendId(pos: number, id: string): void {
    const start = this.idStart[pos]!;
    if (LATIN1.test(id)) {
      if (start + id.length > this.idBytes.length) {
        // Not zero-filled: only the bytes written are read, and the pages not written yet take no memory.
        const bigger = Buffer.allocUnsafeSlow(Math.max(64 * 1024, 2 * this.idBytes.length, start + id.length));
        this.idBytes.copy(bigger, 0, 0, start);
        this.idBytes = bigger;
      }
      this.idBytes.write(id, start, 'latin1');
      this.idStart[pos + 1] = start + id.length;
    } else {
      this.oddIds.set(pos, id);
      this.idStart[pos + 1] = start;
    }
  }

  private slotIn(pos: number, id: string): void {
    const mask = this.slots.length - 1;
    let slot = hashOf(id) & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = pos + 1;
  }

  private idIs(pos: number, id: string): boolean {
    const odd = this.oddIds.get(pos);
    if (odd !== undefined) return odd === id;
    const start = this.idStart[pos]!;
    if (this.idStart[pos + 1]! - start !== id.length) return false;
    for (let i = 0; i < id.length; i++) if (this.idBytes[start + i] !== id.charCodeAt(i)) return false;
    return true;
  }
}
