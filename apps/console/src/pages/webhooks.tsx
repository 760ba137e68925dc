import { useState } from 'preact/hooks';
import { type Page, type Problem, problemOf, query, seg } from '../api';
import { ConfirmButton, described, Facts, Field, ListState, Pager, ProblemBox, ShownOnce, useLoad } from '../components/ui';
import { when } from '../format';
import { href, navigate } from '../router';
import { forgetOnSignOut } from '../session';
import { useApi } from '../session-context';

interface Webhook {
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly status: string;
  readonly events: readonly string[];
  readonly notify_email?: string;
  readonly secret?: string;
  readonly created_at: string;
  readonly modified_at?: string;
}

interface Delivery {
  readonly event_id: string;
  readonly event_type: string;
  readonly status: string;
  readonly attempts: ReadonlyArray<{ attempted_at: string; status_code: number | null; error: string | null; duration_ms: number }>;
  readonly next_attempt_at: string | null;
  readonly created_at: string;
}

/** The signing secret the create answer gave, kept in memory for the page that shows it once. */
let shownSecret: { readonly id: string; readonly secret: string } | undefined;
forgetOnSignOut(() => {
  shownSecret = undefined;
});

/** Webhooks: list, create, view with deliveries, edit, delete. */
export function WebhooksPage(props: { rest: string[] }) {
  const [id, action] = props.rest;
  if (id === undefined) return <WebhookList />;
  if (id === 'new') return <WebhookForm />;
  if (action === 'edit') return <EditWebhook id={id} />;
  return <WebhookDetail id={id} />;
}

function WebhookList() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<Webhook>>('GET', `/webhooks${query({ page, size: 20 })}`), [page]);
  return (
    <section>
      <div class="title-row">
        <h1>Webhooks</h1>
        <a class="button primary" href={href('webhooks', 'new')}>
          New webhook
        </a>
      </div>
      <ListState loading={list.loading} problem={list.problem} empty={(list.data?.data.length ?? 0) === 0} emptyText="No webhooks.">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">Status</th>
              <th scope="col">Events</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((w) => (
              <tr key={w.id}>
                <td>
                  <a href={href('webhooks', w.id)}>{w.name}</a>
                </td>
                <td>
                  <code>{w.url}</code>
                </td>
                <td>{w.status}</td>
                <td>{w.events.join(', ')}</td>
                <td>{when(w.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {list.data && list.data.pagination.total_items > 0 && <Pager page={list.data.pagination} onPage={setPage} label="Webhook pages" />}
    </section>
  );
}

function EditWebhook(props: { id: string }) {
  const api = useApi();
  const hook = useLoad(() => api<Webhook>('GET', `/webhooks/${seg(props.id)}`), [props.id]);
  if (hook.problem) return <ProblemBox problem={hook.problem} />;
  if (!hook.data) return <p class="muted">Loading…</p>;
  return <WebhookForm existing={hook.data} />;
}

function WebhookForm(props: { existing?: Webhook }) {
  const api = useApi();
  const { existing } = props;
  const [name, setName] = useState(existing?.name ?? '');
  const [url, setUrl] = useState(existing?.url ?? 'https://');
  const [status, setStatus] = useState(existing?.status ?? 'enabled');
  const [notify, setNotify] = useState(existing?.notify_email ?? '');
  const [events, setEvents] = useState<string[]>([...(existing?.events ?? [])]);
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const types = useLoad(() => api<string[]>('GET', '/webhooks/event-types'), []);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    const body = { name, url, events, status, ...(notify.trim() === '' ? {} : { notify_email: notify }) };
    try {
      const saved = existing ? await api<Webhook>('PUT', `/webhooks/${seg(existing.id)}`, body) : await api<Webhook>('POST', '/webhooks', body);
      if (saved.secret) shownSecret = { id: saved.id, secret: saved.secret };
      navigate('webhooks', saved.id);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section>
      <p class="crumbs">
        <a href={href('webhooks')}>Webhooks</a> /
      </p>
      <h1>{existing ? `Edit ${existing.name}` : 'New webhook'}</h1>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="hook-name" label="Name" field="name" problem={problem}>
          <input {...described('hook-name', problem, 'name')} value={name} onInput={(e) => setName(e.currentTarget.value)} autocomplete="off" />
        </Field>
        <Field id="hook-url" label="URL" field="url" problem={problem} hint="Where events are POSTed, signed with the webhook's secret.">
          <input {...described('hook-url', problem, 'url', true)} type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} autocomplete="off" />
        </Field>
        <Field id="hook-status" label="Status" field="status" problem={problem}>
          <select {...described('hook-status', problem, 'status')} value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="enabled">Enabled</option>
            <option value="disabled">Disabled</option>
          </select>
        </Field>
        <Field id="hook-notify" label="Notify e-mail (optional)" field="notify_email" problem={problem} hint="Told when deliveries keep failing.">
          <input {...described('hook-notify', problem, 'notify_email', true)} type="email" value={notify} onInput={(e) => setNotify(e.currentTarget.value)} autocomplete="off" />
        </Field>
        <fieldset aria-describedby={problem?.errors && Object.keys(problem.errors).some((k) => k.startsWith('events')) ? 'hook-events-error' : undefined}>
          <legend>Events</legend>
          <ProblemBox problem={types.problem} />
          <div class="checks">
            {types.data?.map((t) => (
              <label key={t} class="check">
                <input type="checkbox" value={t} checked={events.includes(t)} onChange={(e) => setEvents(e.currentTarget.checked ? [...events, t] : events.filter((x) => x !== t))} />
                <code>{t}</code>
              </label>
            ))}
          </div>
          <EventErrors problem={problem} />
        </fieldset>
        <ProblemBox problem={problem} fields={['name', 'url', 'status', 'notify_email', 'events']} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {existing ? 'Save' : 'Create webhook'}
          </button>
          <a class="button" href={existing ? href('webhooks', existing.id) : href('webhooks')}>
            Cancel
          </a>
        </div>
      </form>
    </section>
  );
}

function EventErrors(props: { problem: Problem | undefined }) {
  const entries = Object.entries(props.problem?.errors ?? {}).filter(([k]) => k === 'events' || k.startsWith('events['));
  if (entries.length === 0) return null;
  return (
    <p class="field-error" id="hook-events-error">
      {entries.map(([k, m]) => (k === 'events' ? m.join(' ') : `${k}: ${m.join(' ')}`)).join(' ')}
    </p>
  );
}

function WebhookDetail(props: { id: string }) {
  const api = useApi();
  const hook = useLoad(() => api<Webhook>('GET', `/webhooks/${seg(props.id)}`), [props.id]);
  const [page, setPage] = useState(1);
  const deliveries = useLoad(() => api<Page<Delivery>>('GET', `/webhooks/${seg(props.id)}/deliveries${query({ page, size: 20 })}`), [props.id, page]);
  const [secret] = useState(() => {
    const kept = shownSecret?.id === props.id ? shownSecret.secret : undefined;
    shownSecret = undefined;
    return kept;
  });
  if (hook.problem) return <ProblemBox problem={hook.problem} />;
  if (!hook.data) return <p class="muted">Loading…</p>;
  const w = hook.data;
  return (
    <section>
      <p class="crumbs">
        <a href={href('webhooks')}>Webhooks</a> /
      </p>
      <div class="title-row">
        <h1>{w.name}</h1>
        <div class="actions">
          <a class="button" href={href('webhooks', w.id, 'edit')}>
            Edit
          </a>
          <ConfirmButton
            label="Delete"
            title={`Delete ${w.name}?`}
            message={<p>No more events are sent to it; pending deliveries are dropped.</p>}
            danger
            action={async () => {
              await api('DELETE', `/webhooks/${seg(w.id)}`);
              navigate('webhooks');
            }}
          />
        </div>
      </div>
      {secret && <ShownOnce id="shown-secret" label="The webhook's signing secret" value={secret} />}
      <Facts
        rows={[
          ['Id', <code>{w.id}</code>],
          ['URL', <code>{w.url}</code>],
          ['Status', w.status],
          ['Events', w.events.join(', ')],
          ['Notify e-mail', w.notify_email ?? '—'],
          ['Created', when(w.created_at)],
          ['Modified', when(w.modified_at)],
        ]}
      />
      <div class="title-row">
        <h2>Deliveries</h2>
        <button type="button" onClick={deliveries.reload}>
          Refresh
        </button>
      </div>
      <ListState loading={deliveries.loading} problem={deliveries.problem} empty={(deliveries.data?.data.length ?? 0) === 0} emptyText="No deliveries yet.">
        <table>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Next attempt</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data?.data.map((d) => (
              <tr key={d.event_id}>
                <td>{when(d.created_at)}</td>
                <td>
                  {d.event_type}
                  <br />
                  <code class="small">{d.event_id}</code>
                </td>
                <td>{d.status}</td>
                <td>
                  <ul class="attempts">
                    {d.attempts.map((a) => (
                      <li key={a.attempted_at}>
                        {when(a.attempted_at)}: {a.status_code ?? a.error ?? '—'} ({Math.round(a.duration_ms)} ms)
                      </li>
                    ))}
                  </ul>
                  {d.attempts.length === 0 && '—'}
                </td>
                <td>{when(d.next_attempt_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {deliveries.data && deliveries.data.pagination.total_items > 0 && <Pager page={deliveries.data.pagination} onPage={setPage} label="Delivery pages" />}
    </section>
  );
}
