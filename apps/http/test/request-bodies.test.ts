import request from 'supertest';
import { MAX_BODY_DEPTH, MAX_FIELD_ERRORS, requireSafeValue } from '../src/http/validate';
import { harness } from './harness';

/** The fields a ValidationError names, from requireSafeValue. */
function refusal(value: unknown): Record<string, string[]> | undefined {
  try {
    requireSafeValue(value);
    return undefined;
  } catch (error) {
    return (error as { errors: Record<string, string[]> }).errors;
  }
}

/** `inner` wrapped in `depth` arrays. */
const nested = (depth: number, inner: unknown): unknown => {
  let value = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

describe('the checks every JSON body goes through before any schema', () => {
  it('names the first hostile value in document order, with its whole path', () => {
    expect(refusal({ a: [1, 2, { b: 1e999 }], c: 9007199254740993 })).toEqual({ 'a[2].b': ['Numbers must be finite.'] });
    expect(refusal({ a: 'ok', b: { c: ['x', 'y\ud800'] } })).toEqual({ 'b.c[1]': [expect.stringContaining('well-formed Unicode')] });
    expect(refusal(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toEqual({ 'a.__proto__': ['This field name is reserved.'] });
    expect(refusal({ list: [1, 2, 3], n: 2 ** 53 + 2 })).toEqual({ n: [expect.stringContaining('±9007199254740991')] });
    expect(refusal({ a: [{ b: 'fine' }, [true, null, 1.5]] })).toBeUndefined();
  });

  it('takes values nested up to the limit, and names where a deeper one goes past it', () => {
    expect(refusal({ a: nested(MAX_BODY_DEPTH - 1, 1) })).toBeUndefined();
    const deeper = refusal({ a: nested(MAX_BODY_DEPTH, 1) });
    expect(Object.values(deeper!)).toEqual([[`Values may nest at most ${MAX_BODY_DEPTH} levels deep.`]]);
    expect(Object.keys(deeper!)[0]).toBe(`a${'[0]'.repeat(MAX_BODY_DEPTH - 1)}`);
  });

  it('goes over a wide body nested deep as over a flat one: once per value (a path copied per value cost 0.4 s a MB)', () => {
    // 30 levels around 200,000 values: each value is looked at once, its path not copied. (No timing here: the
    // benchmark and docs/architecture.md hold the figures; this is the shape that was slow, answered as it must be.)
    const wide = nested(30, Array.from({ length: 200_000 }, () => 0));
    expect(refusal(wide)).toBeUndefined();
    (((wide as unknown[][])[0]![0] as unknown[]) as unknown[]).push(Number.POSITIVE_INFINITY);
    expect(Object.keys(refusal(wide)!)).toEqual([`${'[0]'.repeat(2)}[1]`]);
  });

  it('names at most a hundred fields in one 400, counting the rest (no key is needed to send one)', async () => {
    const h = await harness();
    const body = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`unknown_${i}`, 1]));
    const res = await request(h.app).post('/invitations/accept').send({ token: 'x', ...body }).expect(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const fields = Object.keys(res.body.errors);
    expect(fields.length).toBeLessThanOrEqual(MAX_FIELD_ERRORS + 1);
    expect(res.body.errors.body).toEqual([expect.stringMatching(/^\d+ more fields with errors not listed\.$/)]);
    expect(res.text.length).toBeLessThan(20_000);
  });
});
