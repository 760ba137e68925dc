import { ValidationError } from '../shared/errors';
import {
  abaRoutingValid,
  hasCvc,
  isTokenTypeName,
  luhnValid,
  TOKEN_TYPE_NAMES,
  tokenType,
  type TokenTypeName,
  withoutCvc,
} from './token-types';

/** Every string and number inside `data`, so a test can check none of them leaks into an error. */
function leaves(data: unknown): string[] {
  if (typeof data === 'string') return [data];
  if (typeof data === 'number') return [String(data)];
  if (Array.isArray(data)) return data.flatMap(leaves);
  if (typeof data === 'object' && data !== null) return Object.values(data).flatMap(leaves);
  return [];
}

function validationError(type: TokenTypeName, data: unknown): ValidationError {
  try {
    tokenType(type).validate(data);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`expected ${type} data to be rejected`);
}

/** Asserts a 400 whose only keys are `paths`, and whose text never repeats the submitted value. */
function expectRejected(type: TokenTypeName, data: unknown, paths: readonly string[]): void {
  const error = validationError(type, data);
  expect(Object.keys(error.errors).sort()).toEqual([...paths].sort());
  const text = `${error.message} ${JSON.stringify(error.errors)}`;
  for (const secret of leaves(data).filter((leaf) => leaf !== '')) expect(text).not.toContain(secret);
}

const VALID_CARD = '4242424242424242';
const VALID_ROUTING = '021000021';

describe('token type catalogue', () => {
  it.each([
    ['token', '/general/high/'],
    ['card', '/pci/high/'],
    ['bank', '/bank/high/'],
    ['card_number', '/pci/high/'],
    ['us_bank_account_number', '/bank/high/'],
    ['us_bank_routing_number', '/bank/low/'],
    ['social_security_number', '/pii/high/'],
    ['employer_id_number', '/pii/high/'],
  ] as const)('puts %s tokens in %s by default', (name, container) => {
    expect(tokenType(name).name).toBe(name);
    expect(tokenType(name).defaultContainer).toBe(container);
  });

  it('has an entry for every type name and nothing else', () => {
    expect(TOKEN_TYPE_NAMES).toHaveLength(8);
    for (const name of TOKEN_TYPE_NAMES) expect(tokenType(name).name).toBe(name);
  });

  it('recognizes type names exactly', () => {
    expect(isTokenTypeName('card')).toBe(true);
    expect(isTokenTypeName('social_security_number')).toBe(true);
    expect(isTokenTypeName('Card')).toBe(false);
    expect(isTokenTypeName('credit_card')).toBe(false);
    expect(isTokenTypeName('toString')).toBe(false);
  });

  it('fingerprints each type by its table expression', () => {
    const fingerprints = Object.fromEntries(TOKEN_TYPE_NAMES.map((n) => [n, tokenType(n).defaultFingerprintExpression]));
    expect(fingerprints).toEqual({
      token: '{{ data | stringify }}',
      card: '{{ data.number }}',
      bank: '{{ data.account_number }}|{{ data.routing_number }}',
      card_number: '{{ data }}',
      us_bank_account_number: '{{ data }}',
      us_bank_routing_number: '{{ data }}',
      social_security_number: "{{ data | remove: '-' }}",
      employer_id_number: "{{ data | remove: '-' }}",
    });
  });

  it('masks by default, never revealing a card cvc, and leaves generic tokens unmasked', () => {
    expect(tokenType('token').defaultMask).toBeUndefined();
    expect(tokenType('card').defaultMask).toEqual({
      number: '{{ data.number | reveal_last: 4 }}',
      expiration_month: '{{ data.expiration_month }}',
      expiration_year: '{{ data.expiration_year }}',
    });
    expect(tokenType('bank').defaultMask).toEqual({
      routing_number: '{{ data.routing_number }}',
      account_number: '{{ data.account_number | reveal_last: 4 }}',
    });
    for (const name of ['card_number', 'us_bank_account_number', 'us_bank_routing_number'] as const) {
      expect(tokenType(name).defaultMask).toBe('{{ data | reveal_last: 4 }}');
    }
    expect(tokenType('social_security_number').defaultMask).toBe("{{ data | reveal: 0, 4, 'X', '-' }}");
    expect(tokenType('employer_id_number').defaultMask).toBe("{{ data | reveal: 0, 4, 'X', '-' }}");
  });

  it('allows search indexes only on token, social_security_number and employer_id_number', () => {
    const supporting = TOKEN_TYPE_NAMES.filter((n) => tokenType(n).supportsSearchIndexes);
    expect(supporting).toEqual(['token', 'social_security_number', 'employer_id_number']);
  });

  it('indexes identity numbers three ways by default and nothing else', () => {
    const three = ['{{ data }}', "{{ data | remove: '-' }}", '{{ data | last4 }}'];
    expect(tokenType('social_security_number').defaultSearchIndexes).toEqual(three);
    expect(tokenType('employer_id_number').defaultSearchIndexes).toEqual(three);
    const others = TOKEN_TYPE_NAMES.filter((n) => n !== 'social_security_number' && n !== 'employer_id_number');
    for (const name of others) expect(tokenType(name).defaultSearchIndexes).toEqual([]);
  });

  it('cannot be changed by a caller', () => {
    const card = tokenType('card');
    expect(Object.isFrozen(card)).toBe(true);
    expect(Object.isFrozen(card.defaultMask)).toBe(true);
  });
});

describe('checksums', () => {
  it.each([VALID_CARD, '4000056655665556', '378282246310005', '6011111111111117', '0'])('%s passes Luhn', (digits) => {
    expect(luhnValid(digits)).toBe(true);
  });

  it.each(['4242424242424241', '79927398710', '', '4242 4242 4242 4242', '42424242a4242424'])('%j fails Luhn', (d) => {
    expect(luhnValid(d)).toBe(false);
  });

  it.each([VALID_ROUTING, '011000015', '111000025', '122105155'])('%s passes the ABA checksum', (digits) => {
    expect(abaRoutingValid(digits)).toBe(true);
  });

  it.each(['021000022', '02100002', '0210000210', '02100002a', ''])('%j fails the ABA checksum', (digits) => {
    expect(abaRoutingValid(digits)).toBe(false);
  });
});

describe('validating data', () => {
  it.each(TOKEN_TYPE_NAMES)('requires %s data', (name) => {
    expectRejected(name, undefined, ['data']);
    expectRejected(name, null, ['data']);
    expect(validationError(name, null).errors['data']).toEqual(['Data is required.']);
  });

  describe('token', () => {
    it.each([{ any: ['json', 1, true] }, 'a string', 0, false, [], ''])('accepts %j unchanged', (data) => {
      expect(tokenType('token').validate(data)).toBe(data);
    });
  });

  describe('card', () => {
    const full = { number: VALID_CARD, expiration_month: 12, expiration_year: 2030, cvc: '123' };

    it('returns valid card data unchanged, expiration values still integers', () => {
      expect(tokenType('card').validate(full)).toBe(full);
      expect(tokenType('card').validate(full)).toEqual(full);
    });

    it.each([
      { number: VALID_CARD },
      { number: VALID_CARD, expiration_month: 1 },
      { number: VALID_CARD, expiration_year: 2030 },
      { number: '378282246310005', cvc: '1234' },
    ])('accepts %j', (data) => {
      expect(tokenType('card').validate(data)).toBe(data);
    });

    it.each([
      ['a string', VALID_CARD, 'data'],
      ['an array', [VALID_CARD], 'data'],
      ['no number', { expiration_month: 12 }, 'data.number'],
      ['a failing Luhn check', { number: '4242424242424241' }, 'data.number'],
      ['a number given as a number', { number: 4242424242424242 }, 'data.number'],
      ['separators in the number', { number: '4242-4242-4242-4242' }, 'data.number'],
      ['surrounding whitespace', { number: ` ${VALID_CARD}` }, 'data.number'],
      ['a 12-digit number', { number: '424242424242' }, 'data.number'],
      ['a 20-digit number', { number: '42424242424242424242' }, 'data.number'],
      ['month 13', { number: VALID_CARD, expiration_month: 13 }, 'data.expiration_month'],
      ['month 0', { number: VALID_CARD, expiration_month: 0 }, 'data.expiration_month'],
      ['a month given as a string', { number: VALID_CARD, expiration_month: '07' }, 'data.expiration_month'],
      ['a fractional month', { number: VALID_CARD, expiration_month: 6.5 }, 'data.expiration_month'],
      ['year 30', { number: VALID_CARD, expiration_year: 30 }, 'data.expiration_year'],
      ['a five-digit year', { number: VALID_CARD, expiration_year: 20301 }, 'data.expiration_year'],
      ['a null year', { number: VALID_CARD, expiration_year: null }, 'data.expiration_year'],
      ["cvc '12'", { number: VALID_CARD, cvc: '12' }, 'data.cvc'],
      ["cvc '12345'", { number: VALID_CARD, cvc: '12345' }, 'data.cvc'],
      ['a cvc given as a number', { number: VALID_CARD, cvc: 123 }, 'data.cvc'],
      ['an unknown attribute', { number: VALID_CARD, foo: 'bar' }, 'data.foo'],
    ])('rejects %s on the field', (_case, data, path) => {
      expectRejected('card', data, [path]);
    });

    it('reports every broken field at once', () => {
      const data = { number: '4242424242424241', expiration_month: 13, cvc: '99', foo: 'bar' };
      expectRejected('card', data, ['data.number', 'data.expiration_month', 'data.cvc', 'data.foo']);
    });

    it('treats an own __proto__ key as an unknown attribute', () => {
      const data: unknown = JSON.parse(`{"number":"${VALID_CARD}","__proto__":{"x":"y"}}`);
      expectRejected('card', data, ['data.__proto__']);
    });
  });

  describe('bank', () => {
    it.each([
      { routing_number: VALID_ROUTING, account_number: '1' },
      { routing_number: VALID_ROUTING, account_number: '12' },
      { routing_number: VALID_ROUTING, account_number: '123' },
      { routing_number: '011000015', account_number: '12345678901234567' },
    ])('accepts %j unchanged (an account number of up to seventeen digits)', (data) => {
      expect(tokenType('bank').validate(data)).toBe(data);
    });

    it.each([
      ['a string', VALID_ROUTING, ['data']],
      ['nothing', {}, ['data.routing_number', 'data.account_number']],
      ['a bad routing checksum', { routing_number: '021000022', account_number: '0001234567' }, ['data.routing_number']],
      ['an 8-digit routing number', { routing_number: '02100002', account_number: '0001234567' }, ['data.routing_number']],
      ['a routing number as a number', { routing_number: 21000021, account_number: '0001234567' }, ['data.routing_number']],
      ['an 18-digit account', { routing_number: VALID_ROUTING, account_number: '123456789012345678' }, ['data.account_number']],
      ['an empty account', { routing_number: VALID_ROUTING, account_number: '' }, ['data.account_number']],
      ['letters in the account', { routing_number: VALID_ROUTING, account_number: '12345abc' }, ['data.account_number']],
      ['an unknown attribute', { routing_number: VALID_ROUTING, account_number: '0001234567', foo: 'x' }, ['data.foo']],
    ])('rejects %s', (_case, data, paths) => {
      expectRejected('bank', data, paths);
    });
  });

  describe.each([
    ['card_number', [VALID_CARD, '378282246310005', '4000056655665556'], ['4242424241', '424242424242', '42424242424242424242', '4242424242424241', '4242-4242-4242-4242', '42424242424242ab', ` ${VALID_CARD}`, 4242424242424242, { number: VALID_CARD }]],
    ['us_bank_account_number', ['123', '0001234567', '12345678901234567'], ['12', '123456789012345678', '12345abc', '1234 5678', 1234567, '']],
    ['us_bank_routing_number', [VALID_ROUTING, '011000015'], ['021000022', '02100002', '0210000210', '02100002a', 21000021]],
    ['social_security_number', ['123-45-6789', '123456789'], ['12-345-6789', '123-456789-', '12345678', '1234567890', '123 45 6789', ' 123456789', '123-45-678a', 123456789]],
    ['employer_id_number', ['12-3456789', '123456789'], ['123-456789', '12-345-6789', '12345678', '12-34567890', '12 3456789', 123456789]],
  ] as const)('%s', (name, valid, invalid) => {
    it.each(valid)('accepts %j unchanged', (data) => {
      expect(tokenType(name).validate(data)).toBe(data);
    });

    it.each(invalid as readonly unknown[])('rejects %j on data without echoing it', (data) => {
      expectRejected(name, data, ['data']);
    });
  });

  it('says a number must be a string', () => {
    expect(validationError('card_number', 4242424242424242).errors['data']).toEqual(['Card number must be a string.']);
    expect(validationError('card', { number: 4242424242424242 }).errors['data.number']).toEqual([
      'Card number must be a string.',
    ]);
  });
});

describe('cvc retention', () => {
  const card = { number: VALID_CARD, expiration_month: 12, expiration_year: 2030, cvc: '123' };

  it('tracks a card that has a cvc string', () => {
    expect(hasCvc('card', card)).toBe(true);
  });

  it('does not track a card without cvc or data of other types', () => {
    expect(hasCvc('card', { number: VALID_CARD })).toBe(false);
    expect(hasCvc('card', VALID_CARD)).toBe(false);
    expect(hasCvc('card', null)).toBe(false);
    expect(hasCvc('token', { cvc: '123' })).toBe(false);
    expect(hasCvc('card_number', VALID_CARD)).toBe(false);
  });

  it('drops the cvc from card data without touching the original', () => {
    expect(withoutCvc('card', card)).toEqual({ number: VALID_CARD, expiration_month: 12, expiration_year: 2030 });
    expect(card.cvc).toBe('123');
  });

  it('leaves other data as it is', () => {
    const generic = { cvc: '123' };
    expect(withoutCvc('token', generic)).toBe(generic);
    const noCvc = { number: VALID_CARD };
    expect(withoutCvc('card', noCvc)).toBe(noCvc);
    expect(withoutCvc('card_number', VALID_CARD)).toBe(VALID_CARD);
    expect(withoutCvc('card', null)).toBeNull();
  });
});
