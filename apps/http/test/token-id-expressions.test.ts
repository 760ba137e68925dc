import { applicationKey, as, harness, type Harness, privateKey } from './harness';

const NUMBER = '4242424242424242';
const CARD = { number: NUMBER, expiration_month: 12, expiration_year: 2030, cvc: '987' };
const BANK = { routing_number: '021000021', account_number: '1234567890123' };

/**
 * Ids are stored and shown in the clear, so an id expression must make an alias of the data, never copy it: for
 * every type of data (a card's or a bank account's attributes, not only a string), and never the cvc, which is
 * erased after its retention while an id stays for the token's life.
 */
describe('id expressions never copy token data into the id', () => {
  let h: Harness;
  let backend: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    backend = as(h.app, await privateKey(h, 'token:intent:create', 'token:create', 'token:read', 'token:search', 'token:use'));
  });

  const refused = async (body: object): Promise<void> => {
    const res = await backend.post('/tokens').send(body).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['id']);
    expect(res.text).not.toContain(NUMBER);
  };

  it.each([
    ["a card's number", { type: 'card', data: CARD, id: '{{ data.number }}' }],
    ["a card's number inside other text", { type: 'card', data: CARD, id: 'card-{{ data.number }}-x' }],
    ["a bank account's number", { type: 'bank', data: BANK, id: 'acct-{{ data.account_number }}' }],
    ['a string nested in token data', { type: 'token', data: { customer: { iban: 'DE89370400440532013000' } }, id: 'c-{{ data.customer.iban }}' }],
  ])('refuses an id expression that copies %s, storing nothing', async (_case, body) => {
    await refused(body);
    const search = await backend.post('/tokens/search').send({ query: '' }).expect(200);
    expect(search.body.pagination.total_items).toBe(0);
  });

  it('never lets the cvc into an id: an id expression sees the card without it', async () => {
    // An alias that would keep all three digits finds no cvc to alias.
    const res = await backend.post('/tokens').send({ type: 'card', data: CARD, id: 'cvc-{{ data.cvc | alias_preserve_format: 0, 3 }}-{{ data.number | alias_preserve_format: 0, 4 }}' }).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['id']);
    expect(res.text).not.toContain('987');
  });

  it.each([
    ['the data reversed', "{{ data | remove: '-' | split: '' | reverse | join: '' }}"],
    ['a slice of the data', '{{ data | slice: 0, 5 }}'],
    ['the data with a letter between its characters', "{{ data | split: '' | join: 'q' }}"],
    ['the last four alone (not an alias)', '{{ data | last4 }}'],
    ['an alias with the data appended', '{{ data | alias_preserve_length | append: data }}'],
    ['an alias after another filter', "{{ data | remove: '-' | alias_preserve_length }}"],
    ['a tag', "{% if data contains '1' %}one{% endif %}-{{ data | alias_preserve_length }}"],
    ['an assigned copy', '{% assign x = data %}{{ x | alias_preserve_length }}'],
    ['another variable', '{{ x }}'],
    ['two aliases, one keeping the head and one the tail', '{{ data | alias_preserve_format: 5, 0 | slice: 0, 5 }}x{{ data | alias_preserve_format: 0, 4 | slice: 7, 4 }}'],
    ['two aliases with whitespace control', '{{- data | alias_preserve_length -}}y{{- data | alias_preserve_length -}}'],
    ['an alias keeping more than 8 first characters', '{{ data | alias_preserve_format: 9 }}'],
    ['an alias keeping more than 4 last characters', '{{ data | alias_preserve_format: 0, 5 }}'],
    ['an alias with counts that are not plain numbers', "{{ data | alias_preserve_format: '8', '4' }}"],
    ['an alias with a third argument', '{{ data | alias_preserve_length: 0, 4, 4 }}'],
  ])('refuses an id expression that is not an alias: %s', async (_case, id) => {
    const res = await backend.post('/tokens').send({ type: 'social_security_number', data: '123-45-6789', id }).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['id']);
    expect(res.text).not.toMatch(/123|6789|987/);
    expect((await backend.post('/tokens/search').send({ query: '' }).expect(200)).body.pagination.total_items).toBe(0);
  });

  it('refuses the whole of a card number cut from two aliases, either way round', async () => {
    for (const id of [
      '{{ data.number | alias_preserve_format: 8, 0 | slice: 0, 8 }}x{{ data.number | alias_preserve_format: 0, 8 | slice: 8, 8 }}',
      '{{ data.number | alias_preserve_format: 11, 0 | slice: 0, 11 }}x{{ data.number | alias_preserve_format: 0, 5 | slice: 11, 5 }}',
    ]) {
      const res = await backend.post('/tokens').send({ type: 'card', data: CARD, id }).expect(400);
      expect(Object.keys(res.body.errors)).toEqual(['id']);
      expect(res.text).not.toContain('42424242');
    }
    const kept = await backend.post('/tokens').send({ type: 'card', data: CARD, id: '{{ data.number | alias_preserve_format: 8, 4 }}' }).expect(201);
    expect(kept.body.id).toMatch(/^42424242\d{4}4242$/);
  });

  it('takes aliases with text and filters after them, and ids of literals alone', async () => {
    const made = await backend.post('/tokens').send({ type: 'social_security_number', data: '123-45-6789', id: "ssn-{{ data | alias_preserve_format: 0, 4 | prepend: 'x' | upcase }}" }).expect(201);
    expect(made.body.id).toMatch(/^ssn-X\d{3}-\d{2}-6789$/);
    const literal = await backend.post('/tokens').send({ type: 'token', data: 'v', id: "fixed-{{ 'name' | upcase }}" }).expect(201);
    expect(literal.body.id).toBe('fixed-NAME');
  });

  it('refuses, over POST /tokens and POST /tokenize, an id that would show the number of a token intent, and keeps the intent', async () => {
    const intent = (await backend.post('/token-intents').send({ type: 'card', data: CARD }).expect(201)).body;
    await refused({ token_intent_id: intent.id, id: '{{ data.number }}' });
    const bulk = await backend.post('/tokenize').send([{ type: 'card', token_intent_id: intent.id, id: 'x-{{ data.number }}' }]).expect(400);
    expect(Object.keys(bulk.body.errors)).toEqual(['[0].id']);
    expect(bulk.text).not.toContain(NUMBER);
    const token = (await backend.post('/tokens').send({ token_intent_id: intent.id, id: '{{ data.number | alias_preserve_format: 0, 4 }}' }).expect(201)).body;
    expect(token.id).toMatch(/^\d{12}4242$/);
    expect(token.id).not.toBe(NUMBER);
  });

  it('keeps aliases of object data working', async () => {
    const pub = as(h.app, await applicationKey(h, { name: 'web', type: 'public', permissions: ['token:create'] }));
    const res = await pub.post('/tokens').send({ type: 'card', data: CARD, id: 'card_{{ data.number | alias_preserve_length }}' }).expect(201);
    expect(res.body.id).toMatch(/^card_[0-9a-z]{16}$/);
    const bank = await backend.post('/tokens').send({ type: 'bank', data: BANK, id: 'bank_{{ data.account_number | alias_preserve_format: 0, 4 }}' }).expect(201);
    expect(bank.body.id).toMatch(/^bank_\d{9}0123$/);
  });
});

describe('id expressions that transform the data before copying it', () => {
  let h: Harness;
  let backend: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    backend = as(h.app, await privateKey(h, 'token:intent:create', 'token:create', 'token:read', 'token:use'));
  });

  it.each([
    ['all but one digit', "{{ data.number | slice: 0, 15 }}"],
    ['the digits joined by dashes', "{{ data.number | split: '' | join: '-' }}"],
    ['the number upper-cased inside text', "n{{ data.number | upcase }}n"],
  ])('refuses %s, naming id', async (_case, id) => {
    const res = await backend.post('/tokens').send({ type: 'card', data: CARD, id }).expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['id']);
    expect(res.text).not.toContain(NUMBER.slice(0, 15));
  });

  it('still takes aliases that keep a BIN and the last four digits in the clear', async () => {
    // Numbers without repeats: the random middle of an alias of 4242… matches three quarters of it more often. Each
    // its own last four: the alias of one number has a thousand middles, so five of one collided (409) about once in
    // a hundred runs.
    for (const number of ['4539578763621486', '4539578763622476', '4539578763623466', '4539578763624456', '4539578763625446']) {
      const res = await backend.post('/tokens').send({ type: 'card', data: { ...CARD, number }, id: '{{ data.number | alias_card: true, true }}' });
      expect({ status: res.status, errors: res.body.errors }).toEqual({ status: 201, errors: undefined });
      expect(res.body.id).toMatch(new RegExp(`^45395787\\d{4}${number.slice(-4)}$`));
      expect(res.body.id).not.toBe(number);
    }
  });
});

describe('a token made of an intent by a key that may not reveal its data', () => {
  it('takes neither a mask nor an id expression of the caller (either would print the number), and gives the intent back', async () => {
    const h = await harness();
    const intents = as(h.app, await privateKey(h, 'token:intent:create', 'token:intent:read'));
    const masked = as(h.app, await privateKey(h, 'token:create'));
    const intent = (await intents.post('/token-intents').send({ type: 'card', data: CARD }).expect(201)).body.id as string;
    for (const [field, extra] of [['mask', { mask: { number: '{{ data.number }}' } }], ['id', { id: '{{ data.number | alias_card: true, true }}' }]] as const) {
      const res = await masked.post('/tokens').send({ type: 'card', token_intent_id: intent, ...extra }).expect(400);
      expect(Object.keys(res.body.errors)).toEqual([field]);
      expect(res.text).not.toContain(NUMBER);
      const bulk = await masked.post('/tokenize').send({ c: { type: 'card', token_intent_id: intent, ...extra } }).expect(400);
      expect(Object.keys(bulk.body.errors)).toEqual([`c.${field}`]);
    }
    await intents.get(`/token-intents/${intent}`).expect(200);
    const made = await masked.post('/tokens').send({ type: 'card', token_intent_id: intent }).expect(201);
    expect(made.body.data.number).toBe('XXXXXXXXXXXX4242');
    const revealing = as(h.app, await privateKey(h, 'token:create', 'token:use'));
    const second = (await intents.post('/token-intents').send({ type: 'card', data: CARD }).expect(201)).body.id as string;
    const shown = await revealing.post('/tokens').send({ type: 'card', token_intent_id: second, mask: { last4: '{{ data.number | last4 }}' } }).expect(201);
    expect(shown.body.data.number).toBe(NUMBER);
  });

  it('takes no fingerprint expression or search indexes of the caller either: their answers told the number digit by digit', async () => {
    const h = await harness();
    const intents = as(h.app, await privateKey(h, 'token:intent:create', 'token:intent:read'));
    const masked = as(h.app, await privateKey(h, 'token:create', 'token:read'));
    const intent = (await intents.post('/token-intents').send({ type: 'card', data: CARD }).expect(201)).body.id as string;
    await masked.post('/tokens').send({ type: 'token', id: 'taken', data: 'x' }).expect(201);
    // The oracle: an empty fingerprint is a 400, a duplicate literal id (checked later) a 409. Every guess at a digit
    // must now get the same answer, whether it is right or not.
    const answers = new Set<string>();
    for (const digit of ['3', '4', '5']) {
      const guess = { type: 'card', token_intent_id: intent, id: 'taken', fingerprint_expression: `{{ data.number | slice: 0, 1 | remove: '${digit}' }}` };
      const single = await masked.post('/tokens').send(guess);
      const bulk = await masked.post('/tokenize').send({ c: guess });
      answers.add(JSON.stringify([single.status, single.body.errors, bulk.status, bulk.body.errors]));
    }
    expect([...answers].map((a) => JSON.parse(a))).toEqual([[400, { fingerprint_expression: [expect.any(String)] }, 400, { 'c.fingerprint_expression': [expect.any(String)] }]]);
    const indexed = await masked.post('/tokens').send({ type: 'card', token_intent_id: intent, search_indexes: ['{{ data.number }}'] }).expect(400);
    expect(Object.keys(indexed.body.errors)).toEqual(['search_indexes']);
    // The checks come before anything is evaluated on the data: a mask that would fail on it answers the same.
    const failing = await masked.post('/tokens').send({ type: 'card', token_intent_id: intent, mask: { number: '{{ data.number | slice: 0, 1 | remove: "4" | nonexistent_filter }}' } }).expect(400);
    expect(Object.keys(failing.body.errors)).toEqual(['mask']);
    // A key without any rule to create is refused (403) before any of it.
    const reader = as(h.app, await privateKey(h, 'token:read'));
    await reader.post('/tokens').send({ type: 'card', token_intent_id: intent, fingerprint_expression: '{{ data.number }}' }).expect(403);
    await intents.get(`/token-intents/${intent}`).expect(200);
  });
});
