import { exactBounds, lowerBound, parseQueryDate, upperBound } from './query-values';

const utc = (iso: string) => new Date(iso);

describe('parseQueryDate', () => {
  it.each([
    ['2024-01-31', '2024-01-31T00:00:00.000Z', true],
    ['2024-02-29', '2024-02-29T00:00:00.000Z', true],
    ['2024-01-31T10:00', '2024-01-31T10:00:00.000Z', false],
    ['2024-01-31T10:00:05', '2024-01-31T10:00:05.000Z', false],
    ['2024-01-31T10:00:05Z', '2024-01-31T10:00:05.000Z', false],
    ['2024-01-31T10:00:05.1Z', '2024-01-31T10:00:05.100Z', false],
    ['2024-01-31T10:00:05.123456789Z', '2024-01-31T10:00:05.123Z', false],
    ['2024-01-31T10:00:05+02:00', '2024-01-31T08:00:05.000Z', false],
    ['2024-01-31T01:00:00-0130', '2024-01-31T02:30:00.000Z', false],
    ['2024-01-31t10:00:00z', '2024-01-31T10:00:00.000Z', false],
    ['0099-03-01', '0099-03-01T00:00:00.000Z', true],
  ])('reads %s as %s', (text, iso, wholeDay) => {
    expect(parseQueryDate(text)).toEqual({ start: utc(iso), wholeDay });
  });

  it.each([
    '2024-13-01',
    '2024-00-10',
    '2024-04-31',
    '2023-02-29',
    '1900-02-29',
    '2024-01-01T24:00:00Z',
    '2024-01-01T23:60:00Z',
    '2024-01-01T23:59:60Z',
    '2024-01-01T10:00:00+24:00',
    '2024-01-01T10:00:00+01:60',
    '2024-1-1',
    '20240101',
    '2024-01-01T10',
    '2024-01-01 10:00:00',
    '2024-01-01T10:00:00ZZ',
    '01/31/2024',
    '',
  ])('rejects %p', (text) => {
    expect(parseQueryDate(text)).toBeUndefined();
  });
});

describe('date bounds', () => {
  const day = parseQueryDate('2024-01-31')!;
  const instant = parseQueryDate('2024-01-31T10:00:00Z')!;

  it('covers the whole UTC day of a date', () => {
    expect(exactBounds(day)).toEqual({ gte: utc('2024-01-31T00:00:00Z'), lt: utc('2024-02-01T00:00:00Z') });
    expect(lowerBound(day, true)).toEqual({ gte: utc('2024-01-31T00:00:00Z') });
    expect(lowerBound(day, false)).toEqual({ gte: utc('2024-02-01T00:00:00Z') });
    expect(upperBound(day, true)).toEqual({ lt: utc('2024-02-01T00:00:00Z') });
    expect(upperBound(day, false)).toEqual({ lt: utc('2024-01-31T00:00:00Z') });
  });

  it('uses a date-time as the exact instant', () => {
    const at = utc('2024-01-31T10:00:00Z');
    expect(exactBounds(instant)).toEqual({ gte: at, lte: at });
    expect(lowerBound(instant, true)).toEqual({ gte: at });
    expect(lowerBound(instant, false)).toEqual({ gt: at });
    expect(upperBound(instant, true)).toEqual({ lte: at });
    expect(upperBound(instant, false)).toEqual({ lt: at });
  });
});
