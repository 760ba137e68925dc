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

/** Token create (card_number, default fingerprint) and a revealed read, with a private key holding token:use. */
export const tokenScenarios: ScenarioSuite = {
  async prepare(context) {
    const key = await context.createApplication({
      name: 'bench backend',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:use'],
    });
    const res = await fetch(`${context.url}/tokens`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'card_number', data: '4242424242424242' }),
    });
    if (res.status !== 201) throw new Error(`creating the bench token failed: ${res.status}`);
    const { id } = (await res.json()) as { id: string };
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
    ];
  },
};

/** The card number `4242 42xx xxxx xxxx` with the Luhn check digit: `i` picks the middle digits. */
export function cardNumber(i: number): string {
  const body = `424242${String(i).padStart(9, '0')}`;
  let sum = 0;
  for (let k = 0; k < body.length; k++) {
    let digit = Number(body[body.length - 1 - k]);
    if (k % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** Bulk: POST /tokenize of 100 card_number tokens, and POST /detokenize of 100 (revealed), one request each. */
export const bulkScenarios: ScenarioSuite = {
  async prepare(context) {
    const key = await context.createApplication({
      name: 'bench bulk backend',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:use'],
    });
    const requests = Array.from({ length: 100 }, (_, i) => ({ type: 'card_number', data: cardNumber(i) }));
    const res = await fetch(`${context.url}/tokenize`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(requests),
    });
    if (res.status !== 201) throw new Error(`creating the bench tokens failed: ${res.status}`);
    const ids = ((await res.json()) as Array<{ id: string }>).map((t) => t.id);
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
