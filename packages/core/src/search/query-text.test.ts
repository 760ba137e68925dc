import { auditedQueryText, MAX_AUDITED_QUERY } from './query-text';
import { parseTokenQuery } from './parse-query';
import fc from 'fast-check';

describe('auditedQueryText', () => {
  it('writes the query back with every data value as ***', () => {
    const text = auditedQueryText(parseTokenQuery('data:4242424242424242 AND (type:card_number OR metadata.k:V) AND NOT data:"john smith"'));
    expect(text).toBe('(data:*** AND (type:"card_number" OR metadata.k:"v") AND NOT data:***)');
  });

  it('never holds a searched data value, however the query spells it (property, seeded)', () => {
    const secret = fc.stringMatching(/^[a-z0-9]{6,20}$/);
    fc.assert(
      fc.property(secret, fc.constantFrom('data:%s', 'data:"%s"', 'type:token AND data:%s', 'NOT data:%s', '(data:%s OR id:x)'), (value, shape) => {
        const text = auditedQueryText(parseTokenQuery(shape.replace('%s', value)));
        expect(text.toLowerCase()).not.toContain(value.toLowerCase());
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('cuts a very long query', () => {
    const query = parseTokenQuery(Array.from({ length: 60 }, (_, i) => `id:token-number-${i}`).join(' OR '));
    expect(auditedQueryText(query).length).toBe(MAX_AUDITED_QUERY + 1);
  });
});
