/** One HTTP workload: what autocannon sends, and which baseline request it is compared with. */
export interface Scenario {
  readonly name: string;
  readonly method: 'GET' | 'POST';
  /** Path on the vault; may be computed after setup (e.g. a token id). */
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  /** The baseline request of the same shape: GET /echo or POST /echo with the same body. */
  readonly baseline: 'GET' | 'POST';
  /** Tokens each request creates or reads, for the tokens/s column (1 when absent). */
  readonly tokensPerRequest?: number;
}

export interface ScenarioContext {
  readonly url: string;
  /** The management key of the bootstrapped tenant. */
  readonly managementKey: string;
  /** Creates an application and returns its key. */
  createApplication(body: object): Promise<string>;
}

export interface ScenarioSuite {
  /** Prepares data and returns the scenarios with the key each runs with. */
  prepare(context: ScenarioContext): Promise<ReadonlyArray<{ readonly scenario: Scenario; readonly key: string }>>;
}

/** `GET /applications/key`: authentication plus one indexed read, the cheapest authenticated request. */
export const applicationScenarios: ScenarioSuite = {
  async prepare(context) {
    return [
      {
        scenario: { name: 'GET /applications/key', method: 'GET', path: '/applications/key', baseline: 'GET' },
        key: context.managementKey,
      },
    ];
  },
};

/**
 * Token create (card_number, default fingerprint), a revealed read, and a search for that token by id, with a private
 * key holding token:use.
 */
export const tokenScenarios: ScenarioSuite = {
  async prepare(context) {
    const key = await context.createApplication({
      name: 'bench backend',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:use', 'token:search'],
    });
    const { id } = (await postJson(context, key, '/tokens', { type: 'card_number', data: '4242424242424242' }, 'the bench token')) as { id: string };
    return [
      {
        scenario: {
          name: 'POST /tokens (card_number)',
          method: 'POST',
          path: '/tokens',
          body: JSON.stringify({ type: 'card_number', data: '4242424242424242' }),
          baseline: 'POST',
        },
        key,
      },
      { scenario: { name: 'GET /tokens/{id} (reveal)', method: 'GET', path: `/tokens/${id}`, baseline: 'GET' }, key },
      {
        scenario: {
          name: 'POST /tokens/search (by id, reveal)',
          method: 'POST',
          path: '/tokens/search',
          body: JSON.stringify({ query: `id:${id}` }),
          baseline: 'POST',
        },
        key,
      },
    ];
  },
};

/** `body` followed by its Luhn check digit: a valid card number for bench data. */
export function luhnComplete(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** POSTs a JSON body with `key` during setup; the answer's JSON, or a throw naming what failed. */
async function postJson(context: ScenarioContext, key: string, path: string, body: unknown, what: string): Promise<unknown> {
  const res = await fetch(`${context.url}${path}`, {
    method: 'POST',
    headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`creating ${what} failed: ${res.status}`);
  return res.json();
}

/** Bulk: POST /tokenize of 100 card_number tokens, and POST /detokenize of 100 (revealed), one request each. */
export const bulkScenarios: ScenarioSuite = {
  async prepare(context) {
    const key = await context.createApplication({
      name: 'bench bulk backend',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:use'],
    });
    const requests = Array.from({ length: 100 }, (_, i) => ({ type: 'card_number', data: luhnComplete(`424242${String(i).padStart(9, '0')}`) }));
    const ids = ((await postJson(context, key, '/tokenize', requests, 'the bench tokens')) as Array<{ id: string }>).map((t) => t.id);
    return [
      {
        scenario: {
          name: 'POST /tokenize (100 card_number)',
          method: 'POST',
          path: '/tokenize',
          body: JSON.stringify(requests),
          baseline: 'POST',
          tokensPerRequest: 100,
        },
        key,
      },
      {
        scenario: {
          name: 'POST /detokenize (100, reveal)',
          method: 'POST',
          path: '/detokenize',
          body: JSON.stringify(ids.map((id) => `{{ ${id} }}`)),
          baseline: 'POST',
          tokensPerRequest: 100,
        },
        key,
      },
    ];
  },
};

export const SUITES: readonly ScenarioSuite[] = [applicationScenarios, tokenScenarios, bulkScenarios];
