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

export const SUITES: readonly ScenarioSuite[] = [applicationScenarios];
