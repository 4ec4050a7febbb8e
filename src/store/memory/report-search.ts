/**
 * `q` of the report listing over the index's columns: a report matches when one of its searched
 * text columns (reports/columns.ts: the agent name) or its id, ASCII letters lower-cased, contains
 * `q` (lower-cased likewise), as pageOfReports has it.
 *
 * Two ways, both exact: a test of one report (each distinct text tested once per page, the id's
 * bytes compared in place), for a page that walks the sorted order and finds its rows soon; and
 * every report's answer at once, for a `q` that matches few, found by native substring search in
 * one text of the distinct lower-cased names and one buffer of the lower-cased ids (each kept up to
 * date with the reports put since), then kept for the next pages of the same `q` and brought up to
 * date by testing only the reports put (or changed) since.
 */
import { asciiLower } from '../contract/paging.ts';

/** What the search reads of the index (its current columns). */
export interface SearchedColumns {
  size: number;
  /** Latin-1 ids, each at idStart[pos]..idStart[pos + 1] (empty for an odd one). */
  idBytes: Buffer;
  idStart: Uint32Array;
  oddIds: ReadonlyMap<number, string>;
  /** The text numbers of each searched text column, by position (0: none). */
  named: Uint32Array[];
  /** Whether the ids are searched too. */
  ids: boolean;
  textCount: number;
  /** The text, lower-cased (ASCII letters), of a text number ('' for 0). */
  lowerText(no: number): string;
}

const LATIN1 = /^[\0-\xff]*$/;

/** Every report's answer to a `q`: 1 at a matching position. */
export interface Matches {
  found: Uint8Array;
  count: number;
}

/** Whether the Latin-1 bytes at [start, end), ASCII letters lower-cased, contain `q`. */
const bytesContain = (bytes: Buffer, start: number, end: number, q: Uint8Array): boolean => {
  const last = end - q.length;
  outer: for (let at = start; at <= last; at++) {
    for (let k = 0; k < q.length; k++) {
      let b = bytes[at + k]!;
      if (b >= 65 && b <= 90) b += 32;
      if (b !== q[k]) continue outer;
    }
    return true;
  }
  return false;
};

/** The last position whose id starts at or before byte `at`. */
const positionAtByte = (idStart: Uint32Array, size: number, at: number): number => {
  let lo = 0;
  let hi = size - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (idStart[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
};

export class ReportSearch {
  /** The ids' bytes lower-cased, up to idLowerEnd. */
  private idLower = Buffer.allocUnsafeSlow(0);
  private idLowerEnd = 0;
  /** The distinct searched texts lower-cased, each after a NUL (a `q` with one searches no text), their text numbers and where each starts. */
  private names = '';
  private readonly nameNos: number[] = [];
  private readonly nameStarts: number[] = [];
  private nameListed = new Uint8Array(0);
  private namesScanned = 0;
  /** Every report's answer for the last `q` searched whole, up to `upTo` and the moved positions seen. */
  private last: (Matches & { q: string; upTo: number; movedSeen: number }) | undefined;

  /** A test of one report against `q` (lower-cased), valid while the columns do not change. */
  test(c: SearchedColumns, q: string): (pos: number) => boolean {
    const qBytes = LATIN1.test(q) ? Buffer.from(q, 'latin1') : undefined;
    const nameState = new Int8Array(c.textCount); // 0 untested, 1 contains q, 2 not
    const { named, idBytes, idStart, oddIds } = c;
    return (pos) => {
      for (const column of named) {
        const no = column[pos]!;
        let state = nameState[no]!;
        if (state === 0) nameState[no] = state = c.lowerText(no).includes(q) ? 1 : 2;
        if (state === 1) return true;
      }
      if (!c.ids) return false;
      const start = idStart[pos]!;
      const end = idStart[pos + 1]!;
      if (start === end) {
        const odd = oddIds.get(pos);
        return odd !== undefined && asciiLower(odd).includes(q);
      }
      return qBytes !== undefined && bytesContain(idBytes, start, end, qBytes);
    };
  }

  /** Every report's answer to `q` as all() made it last, brought up to date; undefined when the last search was for another `q`. */
  known(c: SearchedColumns, q: string, moved: readonly number[]): Matches | undefined {
    const last = this.last;
    if (last?.q !== q || last.movedSeen > moved.length || last.upTo > c.size) return undefined;
    if (last.found.length < c.size) {
      const bigger = new Uint8Array(Math.ceil(c.size * 1.25));
      bigger.set(last.found);
      last.found = bigger;
    }
    const test = this.test(c, q);
    const retest = (pos: number) => {
      const now = test(pos) ? 1 : 0;
      last.count += now - last.found[pos]!;
      last.found[pos] = now;
    };
    for (let pos = last.upTo; pos < c.size; pos++) retest(pos);
    for (let i = last.movedSeen; i < moved.length; i++) retest(moved[i]!);
    last.upTo = c.size;
    last.movedSeen = moved.length;
    return last;
  }

  /** Every report's answer to `q` (lower-cased): 1 for a match, by position, and how many match. */
  all(c: SearchedColumns, q: string, moved: readonly number[]): Matches {
    const found = new Uint8Array(c.size);
    this.matchNames(c, q, moved, found);
    if (c.ids) this.matchIds(c, q, found);
    let count = 0;
    for (let pos = 0; pos < c.size; pos++) count += found[pos]!;
    this.last = { q, found, count, upTo: c.size, movedSeen: moved.length };
    return this.last;
  }

  private matchNames(c: SearchedColumns, q: string, moved: readonly number[], matches: Uint8Array): void {
    if (q.includes('\0')) return;
    this.listNewNames(c, moved);
    const named = new Uint8Array(c.textCount);
    let any = false;
    for (let at = this.names.indexOf(q); at >= 0; ) {
      let lo = 0;
      let hi = this.nameStarts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (this.nameStarts[mid]! <= at) lo = mid;
        else hi = mid - 1;
      }
      named[this.nameNos[lo]!] = 1;
      any = true;
      const next = this.nameStarts[lo + 1];
      at = next === undefined ? -1 : this.names.indexOf(q, next);
    }
    if (!any) return;
    for (const column of c.named) for (let pos = 0; pos < c.size; pos++) if (named[column[pos]!] === 1) matches[pos] = 1;
  }

  /** Adds the names of the reports put since the last call, and of those moved (they may have a new one), to `names`. */
  private listNewNames(c: SearchedColumns, moved: readonly number[]): void {
    if (this.nameListed.length < c.textCount) {
      const bigger = new Uint8Array(Math.ceil(c.textCount * 1.25));
      bigger.set(this.nameListed);
      this.nameListed = bigger;
    }
    const added: string[] = [];
    let length = this.names.length;
    const list = (no: number) => {
      if (no === 0 || this.nameListed[no] === 1) return;
      const name = c.lowerText(no);
      this.nameListed[no] = 1;
      this.nameNos.push(no);
      this.nameStarts.push(length + 1);
      length += name.length + 1;
      added.push(name);
    };
    for (const column of c.named) {
      for (let pos = this.namesScanned; pos < c.size; pos++) list(column[pos]!);
      for (const pos of moved) list(column[pos]!);
    }
    this.namesScanned = c.size;
    if (added.length > 0) this.names += `\0${added.join('\0')}`;
  }

  private matchIds(c: SearchedColumns, q: string, matches: Uint8Array): void {
    const { idStart, size } = c;
    for (const [pos, id] of c.oddIds) if (asciiLower(id).includes(q)) matches[pos] = 1;
    if (!LATIN1.test(q)) return;
    const end = idStart[size]!;
    this.lowerIds(c, end);
    const qBytes = Buffer.from(q, 'latin1');
    for (let at = this.idLower.indexOf(qBytes, 0); at >= 0 && at + qBytes.length <= end; ) {
      const pos = positionAtByte(idStart, size, at);
      const idEnd = idStart[pos + 1]!;
      if (at + qBytes.length <= idEnd) {
        matches[pos] = 1;
        at = idEnd >= end ? -1 : this.idLower.indexOf(qBytes, idEnd);
      } else {
        at = this.idLower.indexOf(qBytes, at + 1);
      }
    }
  }

  /** Brings the lower-cased copy of the ids' bytes up to `end`. */
  private lowerIds(c: SearchedColumns, end: number): void {
    if (end < this.idLowerEnd) this.idLowerEnd = 0; // the index was rebuilt smaller
    if (end > this.idLower.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.ceil(end * 1.25));
      this.idLower.copy(bigger, 0, 0, this.idLowerEnd);
      this.idLower = bigger;
    }
    const { idBytes } = c;
    // Natively where toLowerCase changes ASCII letters only (no µ or Latin-1 capital among the bytes): a million ids in tens of ms.
    const text = idBytes.toString('latin1', this.idLowerEnd, end);
    if (!/[\xb5\xc0-\xde]/.test(text)) this.idLower.write(text.toLowerCase(), this.idLowerEnd, 'latin1');
    else {
      for (let i = this.idLowerEnd; i < end; i++) {
        const b = idBytes[i]!;
        this.idLower[i] = b >= 65 && b <= 90 ? b + 32 : b;
      }
    }
    this.idLowerEnd = end;
  }
}
