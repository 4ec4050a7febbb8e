/**
 * Paged listings, shared by the tables that have one (accounts, reports): a page starts after a
 * position, not at an offset, so rows inserted meanwhile never shift it.
 */

/** A row's place in a sorted listing: its sort key and id (ties broken by id, so the order is total). */
export interface PagePosition {
  key: string | number;
  id: string;
}

export interface PageQuery<F extends string> {
  /** Only rows whose searched columns (see each table) contain this, ASCII letters in either case. */
  q?: string;
  sort: F;
  descending: boolean;
  /** At most this many rows. */
  limit: number;
  /** Rows after this one in the order asked for (the previous page's `next`). */
  after?: PagePosition;
}

export interface Page<T> {
  items: T[];
  /** Where the next page starts; absent on the last page. */
  next?: PagePosition;
}

/** Lower-cases ASCII letters only, as a search and a name's sort compare text: what SQL's translate() does alike, whatever the database's locale. */
export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
