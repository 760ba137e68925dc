import { as, harness, type Harness, privateKey } from './harness';

/**
 * Expressions that do not parse whole are a 400 naming their field, never a template whose rest is ignored:
 * the Basis Theory SDK's own mask example, `{{ data.number, reveal_last: 4 }}`, used to print the whole
 * card number, because liquidjs stopped reading at the comma.
 */
describe('strict expressions over HTTP', () => {
  const number = '4242424242424242';
  const card = { number, expiration_month: 12, expiration_year: 2030 };
  let h: Harness;
  let api: ReturnType<typeof as>;

  beforeEach(async () => {
    h = await harness();
    api = as(h.app, await privateKey(h, 'token:create', 'token:read', 'token:update', 'token:use'));
  });

  const tokenCount = async (): Promise<number> => (await api.get('/tokens').expect(200)).body.pagination.total_items;

  it.each([
    ['the SDK mask with a comma for a pipe', { type: 'card', data: card, mask: { number: '{{ data.number, reveal_last: 4 }}', expiration_month: '{{ data.expiration_month }}' } }, 'mask.number'],
    ['a mask with a forgotten pipe', { type: 'card_number', data: number, mask: '{{ data reveal_last }}' }, 'mask'],
    ['a mask whose comma hands the next filter to the previous one', { type: 'card_number', data: number, mask: "{{ data | append: '', reveal_last: 4 }}" }, 'mask'],
    ['a search index with junk after it', { type: 'token', data: { email: 'ada@example.com' }, search_indexes: ['{{ data.email, downcase }}'] }, 'search_indexes[0]'],
    ['a second search index with a dangling pipe', { type: 'token', data: { email: 'ada@example.com' }, search_indexes: ['{{ data.email }}', '{{ data.email | }}'] }, 'search_indexes[1]'],
    ['a fingerprint expression with a stray parenthesis', { type: 'card', data: card, fingerprint_expression: '{{ data.number | slice: 0, 6 ) }}' }, 'fingerprint_expression'],
    ['an id expression with a trailing comma', { id: '{{ data | alias_preserve_format: 0, 4, }}', type: 'card_number', data: number }, 'id'],
    ['an id expression with a condition cut short', { id: '{% if data, x %}tok{% endif %}-{{ data | alias_preserve_length }}', type: 'token', data: 'abc' }, 'id'],
  ])('refuses %s with a 400 problem naming the field, and creates nothing', async (_case, body, field) => {
    const res = await api.post('/tokens').send(body).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ type: 'https://svc.dev/errors/validation', status: 400 });
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect(res.body.errors[field][0]).toMatch(/^The expression is invalid: .+ at column \d+\.$/);
    expect(JSON.stringify(res.body)).not.toContain(number);
    expect(await tokenCount()).toBe(0);
  });

  it('refuses the SDK mask on update and keeps the mask the token had', async () => {
    const id = (await api.post('/tokens').send({ type: 'card_number', data: number }).expect(201)).body.id as string;
    const res = await api
      .patch(`/tokens/${id}`)
      .set('Content-Type', 'application/merge-patch+json')
      .send({ mask: '{{ data, reveal_last: 4 }}' })
      .expect(400);
    expect(Object.keys(res.body.errors)).toEqual(['mask']);
    const masker = as(h.app, await privateKey(h, 'token:read'));
    expect((await masker.get(`/tokens/${id}`).expect(200)).body.data).toBe('XXXXXXXXXXXX4242');
  });

  it('accepts the same mask written with its pipe, and masks with it', async () => {
    const mask = { number: '{{ data.number | reveal_last: 4 }}', expiration_month: '{{ data.expiration_month }}' };
    const id = (await api.post('/tokens').send({ type: 'card', data: card, mask }).expect(201)).body.id as string;
    const masker = as(h.app, await privateKey(h, 'token:read'));
    expect((await masker.get(`/tokens/${id}`).expect(200)).body.data).toEqual({ number: 'XXXXXXXXXXXX4242', expiration_month: 12 });
  });
});
