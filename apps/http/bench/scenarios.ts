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

export const SUITES: readonly ScenarioSuite[] = [applicationScenarios, tokenScenarios];
