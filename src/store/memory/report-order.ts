/**
 * The positions of a report index sorted by one listing key (ties by id), kept as one typed
 * array and brought up to date when a page asks for it: the reports put since are sorted among
 * themselves and placed by binary search, the rows between moved as blocks (natively). So a page
 * at a million reports walks from its cursor instead of sorting every row, and keeping up costs a
 * copy of the array per page only when reports arrived in between.
 */
export type PositionCompare = (a: number, b: number) => number;

/** Comparisons made between two turns of the event loop while a large order is sorted (a few ms). */
const SLICE_COMPARISONS = 20_000;
const RUN = 32;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Positions 0..size-1 sorted by `compare`: a bottom-up merge sort that yields to the event loop
 * every SLICE_COMPARISONS comparisons, so that sorting a million reports (seconds of work on a busy
 * machine) never holds the loop for long; runs already in order (dates, as reports arrive) are
 * copied without comparing their rows.
 */
const sortInSlices = async (size: number, compare: PositionCompare): Promise<Uint32Array<ArrayBuffer>> => {
  let from = new Uint32Array(size);
  let to = new Uint32Array(size);
  for (let pos = 0; pos < size; pos++) from[pos] = pos;
  let work = 0;
  for (let lo = 0; lo < size; lo += RUN) {
    for (let i = lo + 1; i < Math.min(lo + RUN, size); i++) {
      const pos = from[i]!;
      let j = i - 1;
      for (; j >= lo && compare(from[j]!, pos) > 0; j--) from[j + 1] = from[j]!;
      from[j + 1] = pos;
    }
    if ((work += RUN * 5) > SLICE_COMPARISONS) await nextTurn().then(() => (work = 0));
  }
  for (let width = RUN; width < size; width *= 2) {
    for (let lo = 0; lo < size; lo += 2 * width) {
      const mid = Math.min(lo + width, size);
      const hi = Math.min(lo + 2 * width, size);
      if (mid === hi || compare(from[mid - 1]!, from[mid]!) < 0) {
        to.set(from.subarray(lo, hi), lo);
        continue;
      }
      for (let i = lo, j = mid, k = lo; k < hi; k++) {
        to[k] = j >= hi || (i < mid && compare(from[i]!, from[j]!) < 0) ? from[i++]! : from[j++]!;
        if (++work > SLICE_COMPARISONS) await nextTurn().then(() => (work = 0));
      }
    }
    [from, to] = [to, from];
  }
  return from;
};

export class SortedOrder {
  private order = new Uint32Array(0);
  private length = 0;
  /** Positions below this are placed in `order`. */
  private synced = 0;
  /** How much of the index's log of moved positions has been applied. */
  private movedSeen = 0;
  private sorting: Promise<void> | undefined;

  constructor(private readonly compare: PositionCompare) {}

  /** Whether current() answers at once: fewer than `sliceFrom` positions to place. */
  ready(size: number, sliceFrom: number): boolean {
    return size - this.synced < sliceFrom;
  }

  /**
   * Resolves once current() answers at once: while `size()` is `sliceFrom` or more positions past
   * those placed (the first page of a sort, a large import), every position is sorted anew in
   * slices (see sortInSlices). A position put again meanwhile may have been compared by its old
   * key and its new one: that sort is made again.
   */
  async prepare(size: () => number, moved: readonly number[], sliceFrom: number): Promise<void> {
    while (!this.ready(size(), sliceFrom)) {
      this.sorting ??= (async () => {
        const [n, seen] = [size(), moved.length];
        const order = await sortInSlices(n, this.compare);
        if (moved.length !== seen) return;
        [this.order, this.length, this.synced, this.movedSeen] = [order, n, n, seen];
      })().finally(() => (this.sorting = undefined));
      await this.sorting;
    }
  }

  /**
   * The order of positions 0..size-1 (its first `length` entries): those put since the last call
   * placed, and those in `moved` (positions whose keys changed, a log that only grows) placed anew.
   */
  current(size: number, moved: readonly number[]): { order: Uint32Array; length: number } {
    const again = new Set<number>();
    for (let i = this.movedSeen; i < moved.length; i++) if (moved[i]! < this.synced) again.add(moved[i]!);
    this.movedSeen = moved.length;
    if (again.size > 0) this.remove(again);
    if (size > this.synced || again.size > 0) {
      const fresh = new Uint32Array(size - this.synced + again.size);
      let n = 0;
      for (const pos of again) fresh[n++] = pos;
      for (let pos = this.synced; pos < size; pos++) fresh[n++] = pos;
      this.insert(fresh.sort(this.compare));
      this.synced = size;
    }
    return { order: this.order, length: this.length };
  }

  /** This order for an index that kept only some positions, `newPosition[old]` (-1: gone), in the same relative order. */
  remapped(size: number, moved: readonly number[], newPosition: Int32Array, compare: PositionCompare): SortedOrder {
    const { order, length } = this.current(size, moved);
    const kept = new SortedOrder(compare);
    kept.order = new Uint32Array(length);
    for (let i = 0; i < length; i++) {
      const pos = newPosition[order[i]!]!;
      if (pos >= 0) kept.order[kept.length++] = pos;
    }
    kept.synced = kept.length;
    return kept;
  }

  private remove(positions: Set<number>): void {
    const gone = new Uint8Array(this.synced);
    for (const pos of positions) gone[pos] = 1;
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const pos = this.order[i]!;
      if (gone[pos] === 0) this.order[kept++] = pos;
    }
    this.length = kept;
  }

  /**
   * Merges `sorted` in, from the end. A few (the usual case: the reports put since the last page)
   * each find their place by binary search, the rows after it moved as one block; many are merged
   * row by row.
   */
  private insert(sorted: Uint32Array): void {
    const total = this.length + sorted.length;
    if (total > this.order.length) {
      const bigger = new Uint32Array(Math.max(1024, Math.ceil(total * 1.25)));
      bigger.set(this.order.subarray(0, this.length));
      this.order = bigger;
    }
    if (sorted.length * 16 > this.length) this.merge(sorted);
    else this.placeEach(sorted);
    this.length = total;
  }

  private merge(sorted: Uint32Array): void {
    let i = this.length - 1;
    for (let j = sorted.length - 1, k = this.length + j; j >= 0; k--) {
      if (i >= 0 && this.compare(this.order[i]!, sorted[j]!) > 0) this.order[k] = this.order[i--]!;
      else this.order[k] = sorted[j--]!;
    }
  }

  private placeEach(sorted: Uint32Array): void {
    let end = this.length; // order[0..end) not yet moved
    for (let j = sorted.length - 1; j >= 0; j--) {
      const pos = sorted[j]!;
      let lo = 0;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (this.compare(this.order[mid]!, pos) < 0) lo = mid + 1;
        else hi = mid;
      }
      this.order.copyWithin(lo + j + 1, lo, end);
      this.order[lo + j] = pos;
      end = lo;
    }
  }
}
