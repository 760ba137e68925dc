import { useState } from 'preact/hooks';
import { type Page, type Problem, problemOf, query, seg } from '../api';
import { ConfirmButton, Facts, ListState, Pager, ProblemBox, ShownOnce, useLoad } from '../components/ui';
import { when } from '../format';
import { href, navigate } from '../router';
import { forgetOnSignOut } from '../session';
import { type Application, type KeyHolder, useApi, useSession } from '../session-context';
import { ApplicationForm } from './application-form';

/** A key the API gave once, kept in memory while the page that shows it is open (never stored, never in the URL). */
let shownOnce: { readonly appId: string; readonly key: string; readonly what: string } | undefined;
forgetOnSignOut(() => {
  shownOnce = undefined;
});

export function ApplicationsPage(props: { rest: string[] }) {
  const [id, action] = props.rest;
  if (id === undefined) return <ApplicationList />;
  if (id === 'new') return <ApplicationForm onSaved={(app) => showKey(app, 'The new application’s key')} />;
  if (action === 'edit') return <EditApplication id={id} />;
  return <ApplicationDetail id={id} />;
}

function showKey(app: Application, what: string): void {
  if (app.key) shownOnce = { appId: app.id, key: app.key, what };
  navigate('applications', app.id);
}

function ApplicationList() {
  const api = useApi();
  const [type, setType] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Page<Application>>('GET', `/applications${query({ type, page, size: 20 })}`), [type, page]);
  return (
    <section>
      <div class="title-row">
        <h1>Applications</h1>
        <a class="button primary" href={href('applications', 'new')}>
          New application
        </a>
      </div>
      <div class="filters">
        <label for="app-type-filter">Type</label>
        <select
          id="app-type-filter"
          value={type}
          onChange={(e) => {
            setType(e.currentTarget.value);
            setPage(1);
          }}
        >
          <option value="">All types</option>
          <option value="private">Private</option>
          <option value="public">Public</option>
          <option value="management">Management</option>
        </select>
      </div>
      <ListState loading={list.loading} problem={list.problem} empty={(list.data?.data.length ?? 0) === 0} emptyText="No applications.">
        <table aria-label="Applications">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Permissions</th>
              <th scope="col">Rules</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.data.map((app) => (
              <tr key={app.id}>
                <td>
                  <a href={href('applications', app.id)}>{app.name}</a>
                </td>
                <td>
                  <span class={`badge ${app.type}`}>{app.type}</span>
                </td>
                <td>{app.permissions.length}</td>
                <td>{app.rules.length}</td>
                <td>{when(app.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {list.data && list.data.pagination.total_items > 0 && <Pager page={list.data.pagination} onPage={setPage} label="Application pages" />}
    </section>
  );
}

function EditApplication(props: { id: string }) {
  const api = useApi();
  const app = useLoad(() => api<Application>('GET', `/applications/${seg(props.id)}`), [props.id]);
  if (app.problem) return <ProblemBox problem={app.problem} />;
  if (!app.data) return <p class="muted">Loading…</p>;
  return <ApplicationForm existing={app.data} onSaved={(saved) => navigate('applications', saved.id)} />;
}

interface ApplicationKey {
  readonly id: string;
  readonly key?: string;
  readonly created_by?: string;
  readonly created_at: string;
}

function ApplicationDetail(props: { id: string }) {
  const api = useApi();
  const session = useSession();
  const app = useLoad(() => api<Application>('GET', `/applications/${seg(props.id)}`), [props.id]);
  const keys = useLoad(() => api<ApplicationKey[]>('GET', `/applications/${seg(props.id)}/keys`), [props.id]);
  const [keyProblem, setKeyProblem] = useState<Problem>();
  // One key per click: a second click while the first is under way would make a key nobody ever sees.
  const [creatingKey, setCreatingKey] = useState(false);
  const [once, setOnce] = useState(() => {
    const kept = shownOnce?.appId === props.id ? shownOnce : undefined;
    shownOnce = undefined;
    return kept;
  });
  if (app.problem) return <ProblemBox problem={app.problem} />;
  if (!app.data) return <p class="muted">Loading…</p>;
  const a = app.data;
  const path = `/applications/${seg(a.id)}`;
  const useForTokens = (key: string): void => session.setTokenKey({ key, identity: { type: a.type, app: a, tenant: { id: a.tenant_id } } } satisfies KeyHolder);
  return (
    <section>
      <p class="crumbs">
        <a href={href('applications')}>Applications</a> /
      </p>
      <div class="title-row">
        <h1>{a.name}</h1>
        <div class="actions">
          <a class="button" href={href('applications', a.id, 'edit')}>
            Edit
          </a>
          <ConfirmButton
            label="Regenerate key"
            title={`Regenerate the key of ${a.name}?`}
            message={<p>A new key replaces every key of this application: all of them stop working at once.</p>}
            confirmLabel="Regenerate"
            danger
            action={async () => {
              const regenerated = await api<Application>('POST', `${path}/regenerate`);
              setOnce({ appId: a.id, key: regenerated.key!, what: 'The regenerated key' });
              // The console's own key was among those revoked: it goes on with the new one (still shown once above).
              if (session.identity.app?.id === a.id) session.replaceKey(regenerated.key!);
              else if (session.tokens?.key !== undefined && session.tokens.identity.app?.id === a.id) useForTokens(regenerated.key!);
              app.reload();
              keys.reload();
            }}
          />
          <ConfirmButton
            label="Delete"
            title={`Delete ${a.name}?`}
            message={<p>The application and every key of it are deleted; requests with its keys fail from now on.</p>}
            danger
            action={async () => {
              await api('DELETE', path);
              navigate('applications');
            }}
          />
        </div>
      </div>
      {once && (
        <ShownOnce id="shown-key" label={once.what} value={once.key}>
          {a.type === 'private' && session.identity.type === 'management' && session.tokens?.key !== once.key && (
            <button type="button" onClick={() => useForTokens(once.key)}>
              Use this key for the token pages
            </button>
          )}
          {session.tokens?.key === once.key && <p class="muted">The token pages use this key now.</p>}
        </ShownOnce>
      )}
      <Facts
        rows={[
          ['Id', <code>{a.id}</code>],
          ['Type', <span class={`badge ${a.type}`}>{a.type}</span>],
          ['Created', `${when(a.created_at)} by ${a.created_by ?? '—'}`],
          ['Modified', a.modified_at ? `${when(a.modified_at)} by ${a.modified_by ?? '—'}` : '—'],
          ['Expires', when(a.expires_at)],
          ['Permissions', a.permissions.length === 0 ? '—' : <ul class="inline">{a.permissions.map((p) => <li key={p}><code>{p}</code></li>)}</ul>],
        ]}
      />
      {a.type !== 'management' && (
        <>
          <h2>Access rules</h2>
          {a.rules.length === 0 ? (
            <p class="empty">No access rules.</p>
          ) : (
            <table aria-label="Access rules">
              <thead>
                <tr>
                  <th scope="col">Priority</th>
                  <th scope="col">Description</th>
                  <th scope="col">Container</th>
                  <th scope="col">Transform</th>
                  <th scope="col">Permissions</th>
                </tr>
              </thead>
              <tbody>
                {a.rules.map((r) => (
                  <tr key={r.priority}>
                    <td>{r.priority}</td>
                    <td>{r.description ?? '—'}</td>
                    <td>
                      <code>{r.container}</code>
                    </td>
                    <td>{r.transform}</td>
                    <td>{r.permissions.join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      <div class="title-row">
        <h2>Keys</h2>
        <button
          type="button"
          disabled={creatingKey}
          onClick={() => {
            setKeyProblem(undefined);
            setCreatingKey(true);
            void api<ApplicationKey>('POST', `${path}/keys`)
              .then(
                (created) => {
                  setOnce({ appId: a.id, key: created.key!, what: 'The new key' });
                  keys.reload();
                },
                (error: unknown) => setKeyProblem(problemOf(error)),
              )
              .finally(() => setCreatingKey(false));
          }}
        >
          Create key
        </button>
      </div>
      <ProblemBox problem={keyProblem} />
      <ListState loading={keys.loading} problem={keys.problem} empty={(keys.data?.length ?? 0) === 0} emptyText="This application has no keys.">
        <table aria-label="Keys">
          <thead>
            <tr>
              <th scope="col">Key id</th>
              <th scope="col">Created</th>
              <th scope="col">Created by</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.map((k) => (
              <tr key={k.id}>
                <td>
                  <code>{k.id}</code>
                </td>
                <td>{when(k.created_at)}</td>
                <td>{k.created_by ?? '—'}</td>
                <td>
                  <ConfirmButton
                    label="Revoke"
                    title="Revoke this key?"
                    message={
                      <p>
                        Requests with key <code>{k.id}</code> fail from now on; the application's other keys keep working.
                      </p>
                    }
                    danger
                    action={async () => {
                      await api('DELETE', `${path}/keys/${seg(k.id)}`);
                      keys.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
    </section>
  );
}
