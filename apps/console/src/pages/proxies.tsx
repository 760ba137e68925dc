import { useState } from 'preact/hooks';
import { type Page, type Problem, problemOf, query, seg } from '../api';
import { ConfirmButton, described, Facts, Field, ListState, Pager, ProblemBox, ShownOnce, useLoad } from '../components/ui';
import { json, when } from '../format';
import { href, navigate } from '../router';
import { forgetOnSignOut } from '../session';
import { type Application, useApi } from '../session-context';

interface Proxy {
  readonly id: string;
  readonly key?: string;
  readonly name: string;
  readonly destination_url: string;
  readonly request_transforms: readonly unknown[];
  readonly response_transforms: readonly unknown[];
  readonly application_id?: string | null;
  readonly configuration?: Readonly<Record<string, string>> | null;
  readonly require_auth: boolean;
  readonly timeout?: number | null;
  readonly disable_detokenization: boolean;
  readonly created_at: string;
  readonly modified_at?: string;
}

/** The proxy key the create answer gave, kept in memory for the page that shows it once. */
let shownKey: { readonly id: string; readonly key: string } | undefined;
forgetOnSignOut(() => {
  shownKey = undefined;
});

/** Pre-configured proxies: list (by name), create, view, edit, delete. */
export function ProxiesPage(props: { rest: string[] }) {
  const [id, action] = props.rest;
  if (id === undefined) return <ProxyList />;
  if (id === 'new') return <ProxyForm />;
  if (action === 'edit') return <EditProxy id={id} />;
  return <ProxyDetail id={id} />;
}

function ProxyList() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const [draft, setDraft] = useState('');
  const [name, setName] = useState('');
  const list = useLoad(() => api<Page<Proxy>>('GET', `/proxies${query({ name, page, size: 20 })}`), [name, page]);
  return (
    <section>
      <div class="title-row">
        <h1>Proxies</h1>
        <a class="button primary" href={href('proxies', 'new')}>
          New proxy
        </a>
      </div>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setName(draft.trim());
          setPage(1);
        }}
      >
        <label for="proxy-name-filter">Name</label>
        <input id="proxy-name-filter" type="search" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} autocomplete="off" />
        <button type="submit">Filter</button>
      </form>
      <ListState loading={list.loading} problem={list.problem} empty={(list.data?.data.length ?? 0) === 0} emptyText="No proxies.">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Destination</th>
              <th scope="col">Transforms</th>
              <th scope="col">Requires a key</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((p) => (
              <tr key={p.id}>
                <td>
                  <a href={href('proxies', p.id)}>{p.name}</a>
                </td>
                <td>
                  <code>{p.destination_url}</code>
                </td>
                <td>
                  {p.request_transforms.length} request, {p.response_transforms.length} response
                </td>
                <td>{p.require_auth ? 'yes' : 'no'}</td>
                <td>{when(p.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {list.data && list.data.pagination.total_items > 0 && <Pager page={list.data.pagination} onPage={setPage} label="Proxy pages" />}
    </section>
  );
}

function EditProxy(props: { id: string }) {
  const api = useApi();
  const proxy = useLoad(() => api<Proxy>('GET', `/proxies/${seg(props.id)}`), [props.id]);
  if (proxy.problem) return <ProblemBox problem={proxy.problem} />;
  if (!proxy.data) return <p class="muted">Loading…</p>;
  return <ProxyForm existing={proxy.data} />;
}

/**
 * The configuration as it is edited: a JSON object of strings. (`key=value` lines could not carry a value holding a
 * line break, a certificate say, and an edit of the name alone split it into two keys.)
 */
const configText = (config: Readonly<Record<string, string>> | null | undefined): string =>
  config && Object.keys(config).length > 0 ? JSON.stringify(config, null, 2) : '';

function parseConfig(text: string): Record<string, string> | string {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `Not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'Must be a JSON object, such as {"TOKEN": "…"}.';
  const bad = Object.entries(parsed).find(([, v]) => typeof v !== 'string');
  if (bad) return `The value of "${bad[0]}" must be a string.`;
  return parsed as Record<string, string>;
}

function parseTransforms(text: string): unknown[] | string {
  if (text.trim() === '') return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : 'Must be a JSON array of transforms.';
  } catch (error) {
    return `Not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}

function ProxyForm(props: { existing?: Proxy }) {
  const api = useApi();
  const { existing } = props;
  const [name, setName] = useState(existing?.name ?? '');
  const [destination, setDestination] = useState(existing?.destination_url ?? 'https://');
  const [applicationId, setApplicationId] = useState(existing?.application_id ?? '');
  const [requireAuth, setRequireAuth] = useState(existing?.require_auth ?? true);
  const [disableDetokenization, setDisableDetokenization] = useState(existing?.disable_detokenization ?? false);
  const [timeout, setTimeoutText] = useState(existing?.timeout == null ? '' : String(existing.timeout));
  const [config, setConfig] = useState(configText(existing?.configuration));
  const [requestTransforms, setRequestTransforms] = useState(existing ? json(existing.request_transforms, true) : '[]');
  const [responseTransforms, setResponseTransforms] = useState(existing ? json(existing.response_transforms, true) : '[]');
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  // Every private application, page by page (a page holds at most 100): a proxy may run as any of them.
  const apps = useLoad(async () => {
    const all: Application[] = [];
    for (let page = 1; ; page++) {
      const got = await api<Page<Application>>('GET', `/applications${query({ type: 'private', page, size: 100 })}`);
      all.push(...got.data);
      if (page >= got.pagination.total_pages || got.data.length === 0) return all;
    }
  }, []);

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    const local: Record<string, string[]> = {};
    const configuration = parseConfig(config);
    const request = parseTransforms(requestTransforms);
    const response = parseTransforms(responseTransforms);
    if (typeof configuration === 'string') local.configuration = [configuration];
    if (typeof request === 'string') local.request_transforms = [request];
    if (typeof response === 'string') local.response_transforms = [response];
    if (timeout.trim() !== '' && Number.isNaN(Number(timeout))) local.timeout = ['Must be a number of seconds.'];
    if (Object.keys(local).length > 0) {
      setProblem({ title: 'Fix the fields below', status: 0, errors: local });
      return;
    }
    const body = {
      name,
      destination_url: destination,
      request_transforms: request,
      response_transforms: response,
      application_id: applicationId === '' ? null : applicationId,
      configuration,
      require_auth: requireAuth,
      timeout: timeout.trim() === '' ? null : Number(timeout),
      disable_detokenization: disableDetokenization,
    };
    setBusy(true);
    setProblem(undefined);
    try {
      const saved = existing ? await api<Proxy>('PUT', `/proxies/${seg(existing.id)}`, body) : await api<Proxy>('POST', '/proxies', body);
      if (saved.key) shownKey = { id: saved.id, key: saved.key };
      navigate('proxies', saved.id);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  const fields = ['name', 'destination_url', 'application_id', 'require_auth', 'timeout', 'disable_detokenization', 'configuration', 'request_transforms', 'response_transforms'];
  return (
    <section>
      <p class="crumbs">
        <a href={href('proxies')}>Proxies</a> /
      </p>
      <h1>{existing ? `Edit ${existing.name}` : 'New proxy'}</h1>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="proxy-name" label="Name" field="name" problem={problem}>
          <input {...described('proxy-name', problem, 'name')} value={name} onInput={(e) => setName(e.currentTarget.value)} autocomplete="off" />
        </Field>
        <Field id="proxy-destination" label="Destination URL" field="destination_url" problem={problem}>
          <input {...described('proxy-destination', problem, 'destination_url')} type="url" value={destination} onInput={(e) => setDestination(e.currentTarget.value)} autocomplete="off" />
        </Field>
        <Field id="proxy-application" label="Application" field="application_id" problem={problem} hint="The private application whose access the proxy detokenizes and tokenizes with.">
          <select {...described('proxy-application', problem, 'application_id', true)} value={applicationId} onChange={(e) => setApplicationId(e.currentTarget.value)}>
            <option value="">None</option>
            {applicationId !== '' && !apps.data?.some((a) => a.id === applicationId) && <option value={applicationId}>{applicationId}</option>}
            {apps.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
        </Field>
        <Field id="proxy-timeout" label="Timeout in seconds (optional)" field="timeout" problem={problem}>
          <input {...described('proxy-timeout', problem, 'timeout')} type="number" min="1" value={timeout} onInput={(e) => setTimeoutText(e.currentTarget.value)} />
        </Field>
        <div class="field">
          <label class="check">
            <input id="proxy-require-auth" type="checkbox" checked={requireAuth} onChange={(e) => setRequireAuth(e.currentTarget.checked)} /> Callers must also send an API key
          </label>
          <label class="check">
            <input id="proxy-no-detokenize" type="checkbox" checked={disableDetokenization} onChange={(e) => setDisableDetokenization(e.currentTarget.checked)} /> Never detokenize
            requests
          </label>
        </div>
        <Field id="proxy-config" label="Configuration (JSON object of strings)" field="configuration" problem={problem} hint='Stored sealed; append_header transforms read it as {{ configuration.KEY }}. For example {"TOKEN": "…"}.'>
          <textarea {...described('proxy-config', problem, 'configuration', true)} class="mono" rows={4} value={config} onInput={(e) => setConfig(e.currentTarget.value)} spellcheck={false} />
        </Field>
        <Field id="proxy-request" label="Request transforms (JSON)" field="request_transforms" problem={problem} hint='For example [{"type":"tokenize","matcher":"$.card","token":{"type":"card_number"}}] or [{"type":"append_header","name":"Authorization","value":"Bearer {{ configuration.TOKEN }}"}].'>
          <textarea {...described('proxy-request', problem, 'request_transforms', true)} class="mono" rows={4} value={requestTransforms} onInput={(e) => setRequestTransforms(e.currentTarget.value)} spellcheck={false} />
        </Field>
        <Field id="proxy-response" label="Response transforms (JSON)" field="response_transforms" problem={problem}>
          <textarea {...described('proxy-response', problem, 'response_transforms')} class="mono" rows={4} value={responseTransforms} onInput={(e) => setResponseTransforms(e.currentTarget.value)} spellcheck={false} />
        </Field>
        <ProblemBox problem={problem} fields={fields} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {existing ? 'Save' : 'Create proxy'}
          </button>
          <a class="button" href={existing ? href('proxies', existing.id) : href('proxies')}>
            Cancel
          </a>
        </div>
      </form>
    </section>
  );
}

function ProxyDetail(props: { id: string }) {
  const api = useApi();
  const proxy = useLoad(() => api<Proxy>('GET', `/proxies/${seg(props.id)}`), [props.id]);
  const [key] = useState(() => {
    const kept = shownKey?.id === props.id ? shownKey.key : undefined;
    shownKey = undefined;
    return kept;
  });
  if (proxy.problem) return <ProblemBox problem={proxy.problem} />;
  if (!proxy.data) return <p class="muted">Loading…</p>;
  const p = proxy.data;
  return (
    <section>
      <p class="crumbs">
        <a href={href('proxies')}>Proxies</a> /
      </p>
      <div class="title-row">
        <h1>{p.name}</h1>
        <div class="actions">
          <a class="button" href={href('proxies', p.id, 'edit')}>
            Edit
          </a>
          <ConfirmButton
            label="Delete"
            title={`Delete ${p.name}?`}
            message={<p>Requests with its key fail from now on.</p>}
            danger
            action={async () => {
              await api('DELETE', `/proxies/${seg(p.id)}`);
              navigate('proxies');
            }}
          />
        </div>
      </div>
      {key && (
        <ShownOnce id="shown-proxy-key" label="The proxy's key" value={key}>
          <p class="muted">Callers send it in the SVC-PROXY-KEY header (or BT-PROXY-KEY) to /proxy.</p>
        </ShownOnce>
      )}
      <Facts
        rows={[
          ['Id', <code>{p.id}</code>],
          ['Destination', <code>{p.destination_url}</code>],
          ['Application', p.application_id ? <a href={href('applications', p.application_id)}>{p.application_id}</a> : '—'],
          ['Requires a key', p.require_auth ? 'yes' : 'no'],
          ['Detokenizes requests', p.disable_detokenization ? 'no' : 'yes'],
          ['Timeout', p.timeout == null ? 'default' : `${p.timeout} s`],
          ['Configuration keys', Object.keys(p.configuration ?? {}).join(', ') || '—'],
          ['Request transforms', <pre>{json(p.request_transforms, true)}</pre>],
          ['Response transforms', <pre>{json(p.response_transforms, true)}</pre>],
          ['Created', when(p.created_at)],
          ['Modified', when(p.modified_at)],
        ]}
      />
    </section>
  );
}
