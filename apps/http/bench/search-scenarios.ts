import { createdAtOf, CUSTOMERS, datasetToken, PLANS, type SearchDataset } from './search-dataset';

/** A search workload with the total it must report, computed from the dataset's recipe. */
export interface SearchScenario {
  readonly name: string;
  readonly query: string;
  readonly expectedTotal: number;
  readonly selective: boolean;
}

function countWhere(count: number, predicate: (i: number, createdAt: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < count; i++) if (predicate(i, createdAtOf(i, count))) n++;
  return n;
}

const within = (t: number, from: string, toInclusiveDay: string): boolean =>
  t >= Date.parse(`${from}T00:00:00Z`) && t < Date.parse(`${toInclusiveDay}T00:00:00Z`) + 86_400_000;

export function searchScenarios(dataset: SearchDataset): SearchScenario[] {
  const { count } = dataset;
  const customer = Number(dataset.knownCustomer.slice(1));
  return [
    { name: 'search data: (one SSN)', query: `data:${dataset.knownSsn}`, expectedTotal: 1, selective: true },
    {
      name: 'search metadata.customer_id',
      query: `metadata.customer_id:${dataset.knownCustomer}`,
      expectedTotal: countWhere(count, (i) => i % CUSTOMERS === customer),
      selective: true,
    },
    {
      name: 'search container:/pii/* + 1 week',
      query: 'container:/pii/* AND created_at:[2025-03-01 TO 2025-03-07]',
      expectedTotal: countWhere(count, (i, t) => (i % 10 < 4 || i % 10 === 9) && within(t, '2025-03-01', '2025-03-07')),
      selective: false,
    },
    {
      name: 'search type AND plan AND 2 weeks',
      query: 'type:social_security_number AND metadata.plan:gold AND created_at:[2025-05-01 TO 2025-05-14]',
      expectedTotal: countWhere(
        count,
        (i, t) => PLANS[i % 3] === 'gold' && within(t, '2025-05-01', '2025-05-14') && datasetToken(i).type === 'social_security_number',
      ),
      selective: false,
    },
  ];
}
