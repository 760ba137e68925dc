import { allOperations, requestsIn, type Tally } from './soak-counts';
import type { SoakSample } from './soak-driver';

/** The spans of a soak the targets of issue 17.3 compare, in seconds from its start. */
export interface SoakWindows {
  /** The warm-up ends here; RSS sampled here is the reference. */
  readonly warmUpEnd: number;
  /** Throughput reference window [from, to). */
  readonly reference: readonly [number, number];
  /** The window compared with the reference: the end of the run. */
  readonly final: readonly [number, number];
  /** True when the run is shorter than 15 minutes and the windows are thirds of it. */
  readonly scaled: boolean;
}

/**
 * A run of 15 minutes or more: warm-up the first 5 minutes, reference minutes 5–10, final the last 5 minutes.
 * Shorter: the same shape scaled to thirds (warm-up the first third, reference the middle third, final the last).
 */
export function soakWindows(minutes: number): SoakWindows {
  const total = minutes * 60;
  if (minutes >= 15) return { warmUpEnd: 300, reference: [300, 600], final: [total - 300, total], scaled: false };
  const third = total / 3;
  return { warmUpEnd: third, reference: [third, 2 * third], final: [2 * third, total], scaled: true };
}

export interface SoakCheck {
  readonly id: 'no-5xx' | 'answers' | 'throughput' | 'rss';
  readonly name: string;
  readonly passed: boolean;
  readonly detail: string;
}

/** Allowed change of the final window's throughput against the reference window's (either way). */
export const THROUGHPUT_TOLERANCE = 0.1;
/** Allowed growth of the highest RSS after warm-up over the RSS at the end of warm-up. */
export const RSS_TOLERANCE = 0.15;

/** The sample's middle, in seconds from the start: which window an interval belongs to. */
const middle = (s: SoakSample): number => s.atSeconds - s.seconds / 2;

/** Requests per second over the samples whose middle lies in [from, to). */
export function throughputIn(samples: readonly SoakSample[], [from, to]: readonly [number, number]): number {
  const within = samples.filter((s) => middle(s) >= from && middle(s) < to);
  const seconds = within.reduce((n, s) => n + s.seconds, 0);
  return seconds === 0 ? Number.NaN : within.reduce((n, s) => n + requestsIn(s.counts), 0) / seconds;
}

/** The sample taken nearest `at` seconds. */
export function sampleNear(samples: readonly SoakSample[], at: number): SoakSample | undefined {
  return samples.reduce<SoakSample | undefined>((best, s) => (!best || Math.abs(s.atSeconds - at) < Math.abs(best.atSeconds - at) ? s : best), undefined);
}

const mb = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MB`;
const pct = (ratio: number): string => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)}%`;

/**
 * Issue 17.3's targets on a finished soak of `minutes`: no 5xx; every other answer as expected too (the mix sends
 * only valid requests); final-window throughput within 10% of the reference window's; and the highest RSS sampled
 * after warm-up within 15% of the RSS sampled at the end of warm-up.
 */
export function soakChecks(samples: readonly SoakSample[], totals: Readonly<Tally>, minutes: number): SoakCheck[] {
  const windows = soakWindows(minutes);
  const all = allOperations(totals);
  const checks: SoakCheck[] = [
    { id: 'no-5xx', name: 'no 5xx', passed: all.status5xx === 0, detail: `${all.status5xx} answers 5xx` },
    {
      id: 'answers',
      name: 'every answer as expected',
      passed: all.non2xx === 0 && all.errors === 0,
      detail: `${all.non2xx} non-2xx (5xx included), ${all.errors} errors (no answer, or a wrong 2xx) of ${requestsIn(totals)} requests`,
    },
  ];

  const reference = throughputIn(samples, windows.reference);
  const final = throughputIn(samples, windows.final);
  const ratio = final / reference;
  checks.push({
    id: 'throughput',
    name: `throughput, last window within ${THROUGHPUT_TOLERANCE * 100}% of the reference`,
    passed: Number.isFinite(ratio) && Math.abs(ratio - 1) <= THROUGHPUT_TOLERANCE,
    detail: `${final.toFixed(0)} req/s in ${span(windows.final)} against ${reference.toFixed(0)} req/s in ${span(windows.reference)} (${pct(ratio)})`,
  });

  const atWarmUp = sampleNear(samples, windows.warmUpEnd);
  const after = samples.filter((s) => atWarmUp && s.atSeconds > atWarmUp.atSeconds && s.rssBytes !== undefined);
  if (atWarmUp?.rssBytes === undefined || after.length === 0) {
    checks.push({ id: 'rss', name: `RSS within ${RSS_TOLERANCE * 100}% after warm-up`, passed: false, detail: 'RSS not sampled (read from /proc: Linux only)' });
  } else {
    const highest = after.reduce((max, s) => (s.rssBytes! > max.rssBytes! ? s : max));
    const growth = highest.rssBytes! / atWarmUp.rssBytes!;
    checks.push({
      id: 'rss',
      name: `RSS within ${RSS_TOLERANCE * 100}% after warm-up`,
      passed: growth <= 1 + RSS_TOLERANCE,
      detail: `highest ${mb(highest.rssBytes!)} at ${clock(highest.atSeconds)} against ${mb(atWarmUp.rssBytes!)} at ${clock(atWarmUp.atSeconds)} (${pct(growth)}); at the end ${mb(samples.at(-1)?.rssBytes ?? Number.NaN)}`,
    });
  }
  return checks;
}

/** `m:ss` for a number of seconds. */
export function clock(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

const span = ([from, to]: readonly [number, number]): string => `${clock(from)}–${clock(to)}`;
