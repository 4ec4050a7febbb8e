/** Values looked up in the PostgreSQL engine's statements (the store and its listings). */

/** A value looked up: one with a NUL character matches nothing (no stored value has one), where sent as it is the server would refuse the statement. */
export const sought = (value: string): string | null => (value.includes('\0') ? null : value);
/** The values sought that can be stored (a NUL is in none), for `= any(...::text[])`. */
export const soughtAll = (values: readonly string[]): string[] => values.filter((v) => !v.includes('\0'));
