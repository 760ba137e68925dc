import { ValidationError } from '../shared/errors';
import { parseTokenExpiry } from './token-expiry';

const now = new Date('2026-01-01T00:00:00.000Z');

describe('parseTokenExpiry', () => {
  it.each([
    ['2026-06-01T10:00:00Z', '2026-06-01T10:00:00.000Z'],
    ['2026-06-01T10:00:00.5+02:00', '2026-06-01T08:00:00.500Z'],
    ['2026-06-01', '2026-06-01T00:00:00.000Z'],
    ['6/1/2026', '2026-06-01T00:00:00.000Z'],
    ['06/01/2026 12:00:00 PM', '2026-06-01T12:00:00.000Z'],
    ['6/1/2026 12:00:00 AM', '2026-06-01T00:00:00.000Z'],
    ['6/1/2026 1:15:30 pm -05:00', '2026-06-01T18:15:30.000Z'],
  ])('reads %s', (value, expected) => {
    expect(parseTokenExpiry(value, now).toISOString()).toBe(expected);
  });

  it.each(['1/2/2099 3:04:05 PM +99:99', '1/2/2099 3:04:05 PM +15:00', '2099-01-02T03:04:05+14:60', '2099-01-02T03:04:05+24:00', '2/30/2026', '13/1/2026', '6/1/2026 13:00:00 PM', '2026-02-30', 'soon', '', '2025-12-31T23:59:59Z', '1/1/2026'])(
    'refuses %j',
    (value) => {
      expect(() => parseTokenExpiry(value, now)).toThrow(ValidationError);
    },
  );
});
