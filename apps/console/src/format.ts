/** Dates as the console shows them: ISO, to the second, in UTC, so they match the API and the logs. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** A `datetime-local` input's value as an ISO instant (read in the browser's time zone), or undefined when empty. */
export function isoFromLocal(value: string): string | undefined {
  if (value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** Any JSON value on one line or indented, for data as the key's transform gives it. */
export const json = (value: unknown, indent = false): string => JSON.stringify(value, null, indent ? 2 : undefined) ?? 'undefined';
