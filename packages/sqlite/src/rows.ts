/** Row helpers: times are epoch milliseconds, absent optional values are NULL. */
export const ms = (date: Date | undefined): number | null => (date ? date.getTime() : null);
export const date = (value: number | null): Date | undefined => (value === null ? undefined : new Date(value));
export const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
export const nul = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

/** `(?, ?, ?)` for an IN list of `count` values. */
export const placeholders = (count: number): string => Array.from({ length: count }, () => '?').join(', ');
