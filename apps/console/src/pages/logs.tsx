import { useState } from 'preact/hooks';
import { type Page, type Problem, query } from '../api';
import { described, Field, ListState, Pager, ProblemBox, useLoad } from '../components/ui';
import { isoFromLocal, when } from '../format';
import { looksLikeKey } from '../session';
import { useApi } from '../session-context';

interface AuditEvent {
  readonly id: string;
  readonly actor_id: string;
  readonly actor_type: string;
  readonly entity_type: string;
  readonly entity_id: string | null;
  readonly operation: string;
  readonly outcome: string;
  readonly message: string;
  readonly trace_id: string | null;
  readonly created_at: string;
}

interface Filters {
  readonly entity_type: string;
  readonly entity_id: string;
  readonly start_date: string;
  readonly end_date: string;
}

const NO_FILTERS: Filters = { entity_type: '', entity_id: '', start_date: '', end_date: '' };

/**
 * `GET /logs`, newest first: filters by entity type (from `GET /logs/entity-types`), entity id and a date range
 * (start inclusive, end exclusive, read in the browser's time zone and sent as ISO instants).
 */
export function LogsPage() {
  const api = useApi();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const types = useLoad(() => api<Array<{ display_name: string; value: string }>>('GET', '/logs/entity-types'), []);
  const events = useLoad(
    () =>
      api<Page<AuditEvent>>(
        'GET',
        `/logs${query({
          entity_type: applied.entity_type,
          entity_id: applied.entity_id.trim(),
          start_date: isoFromLocal(applied.start_date),
          end_date: isoFromLocal(applied.end_date),
          page,
          size: 25,
        })}`,
      ),
    [applied, page],
  );
  // A refusal of the filters before any call (a key pasted as an entity id), else the API's.
  const [refused, setRefused] = useState<Problem>();
  const fieldProblem: Problem | undefined = refused ?? (events.problem?.errors ? events.problem : undefined);
  const set = (name: keyof Filters) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) => setDraft({ ...draft, [name]: e.currentTarget.value });
  const fields = ['entity_type', 'entity_id', 'start_date', 'end_date'];
  return (
    <section>
      <h1>Audit log</h1>
      <form
        class="filters-form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          // Filters go into the URL of GET /logs, which proxies in front of the vault log: a key must never get there.
          if (looksLikeKey(draft.entity_id)) {
            setRefused({
              title: 'Not an id',
              status: 0,
              errors: { entity_id: ['This is an API key, not an id: a key never goes into a URL. Filter by its application’s id (Applications page).'] },
            });
            return;
          }
          setRefused(undefined);
          setApplied(draft);
          setPage(1);
        }}
      >
        <Field id="log-entity-type" label="Entity type" field="entity_type" problem={fieldProblem}>
          <select {...described('log-entity-type', fieldProblem, 'entity_type')} value={draft.entity_type} onChange={set('entity_type')}>
            <option value="">Any</option>
            {types.data?.map((t) => (
              <option key={t.value} value={t.value}>
                {t.display_name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="log-entity-id" label="Entity id" field="entity_id" problem={fieldProblem}>
          <input {...described('log-entity-id', fieldProblem, 'entity_id')} value={draft.entity_id} onInput={set('entity_id')} autocomplete="off" spellcheck={false} />
        </Field>
        <Field id="log-start" label="From" field="start_date" problem={fieldProblem}>
          <input {...described('log-start', fieldProblem, 'start_date')} type="datetime-local" step="1" value={draft.start_date} onInput={set('start_date')} />
        </Field>
        <Field id="log-end" label="Until (exclusive)" field="end_date" problem={fieldProblem}>
          <input {...described('log-end', fieldProblem, 'end_date')} type="datetime-local" step="1" value={draft.end_date} onInput={set('end_date')} />
        </Field>
        <div class="actions">
          <button type="submit" class="primary">
            Apply
          </button>
          <button
            type="button"
            onClick={() => {
              setRefused(undefined);
              setDraft(NO_FILTERS);
              setApplied(NO_FILTERS);
              setPage(1);
            }}
          >
            Clear
          </button>
          <button type="button" onClick={events.reload}>
            Refresh
          </button>
        </div>
      </form>
      <ProblemBox problem={types.problem} />
      {fieldProblem && <ProblemBox problem={fieldProblem} fields={fields} />}
      <ListState loading={events.loading} problem={fieldProblem ? undefined : events.problem} empty={(events.data?.data.length ?? 0) === 0 || fieldProblem !== undefined} emptyText="No events.">
        <table class="log">
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">Entity</th>
              <th scope="col">Operation</th>
              <th scope="col">Outcome</th>
              <th scope="col">Actor</th>
              <th scope="col">Message</th>
              <th scope="col">Trace id</th>
            </tr>
          </thead>
          <tbody>
            {events.data?.data.map((e) => (
              <tr key={e.id}>
                <td>{when(e.created_at)}</td>
                <td>
                  {e.entity_type}
                  {e.entity_id && (
                    <>
                      <br />
                      <code class="small">{e.entity_id}</code>
                    </>
                  )}
                </td>
                <td>{e.operation}</td>
                <td>
                  <span class={`outcome ${e.outcome}`}>{e.outcome}</span>
                </td>
                <td>
                  {e.actor_type}
                  <br />
                  <code class="small">{e.actor_id}</code>
                </td>
                <td>{e.message}</td>
                <td>
                  <code class="small">{e.trace_id ?? '—'}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {events.data && !fieldProblem && events.data.pagination.total_items > 0 && <Pager page={events.data.pagination} onPage={setPage} label="Event pages" />}
    </section>
  );
}
