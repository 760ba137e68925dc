import { useEffect, useState } from 'preact/hooks';
import { ApiError, type Problem, problemOf } from './api';
import { PageBoundary, ProblemBox } from './components/ui';
import { href, navigate, useRoute } from './router';
import { forgetKeys, storedKey, storedTokenKey, storeKey, storeTokenKey } from './session';
import { type Identity, identify, type KeyHolder, type Session, SessionContext, useSession } from './session-context';
import { SignIn } from './pages/sign-in';
import { ApplicationsPage } from './pages/applications';
import { TokensPage } from './pages/tokens';
import { MembersPage } from './pages/members';
import { LogsPage } from './pages/logs';
import { WebhooksPage } from './pages/webhooks';
import { ProxiesPage } from './pages/proxies';

const SECTIONS = [
  ['applications', 'Applications'],
  ['tokens', 'Tokens'],
  ['members', 'Members'],
  ['logs', 'Audit log'],
  ['webhooks', 'Webhooks'],
  ['proxies', 'Proxies'],
] as const;

type State =
  | { readonly phase: 'checking' }
  | { readonly phase: 'signed-out'; readonly problem?: Problem | undefined }
  | { readonly phase: 'unreachable'; readonly problem: Problem }
  | { readonly phase: 'signed-in'; readonly key: string; readonly identity: Identity; readonly tokenHolder?: KeyHolder | undefined };

/** Who a stored key is; undefined for a key the API refused with a 401 (it stopped working). */
async function resumeKey(key: string): Promise<Identity | undefined> {
  try {
    return await identify(key);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined;
    throw error;
  }
}

/**
 * Resumes a session this tab already holds: both keys are checked again, and a key the API refuses (401) is
 * forgotten. A server that cannot answer now (network, 429, 5xx) forgets nothing: the page offers a retry.
 */
async function resume(): Promise<State> {
  const key = storedKey();
  if (!key) return { phase: 'signed-out' };
  try {
    const identity = await resumeKey(key);
    if (!identity) {
      forgetKeys();
      return { phase: 'signed-out', problem: { title: 'Signed out', status: 401, errors: { key: ['This key stopped working (revoked or expired): paste another.'] } } };
    }
    const tokenKey = storedTokenKey();
    let tokenHolder: KeyHolder | undefined;
    if (tokenKey) {
      const tokenIdentity = await resumeKey(tokenKey);
      if (tokenIdentity) tokenHolder = { key: tokenKey, identity: tokenIdentity };
      else storeTokenKey(undefined);
    }
    return { phase: 'signed-in', key, identity, tokenHolder };
  } catch (error) {
    return { phase: 'unreachable', problem: problemOf(error) };
  }
}

export function App() {
  const [state, setState] = useState<State>({ phase: 'checking' });
  const check = (): void => {
    setState({ phase: 'checking' });
    void resume().then(setState);
  };
  useEffect(check, []);

  if (state.phase === 'checking') return <p class="muted boot">Loading…</p>;
  if (state.phase === 'unreachable') {
    return (
      <main id="main" class="sign-in">
        <h1>svc console</h1>
        <ProblemBox problem={state.problem} />
        <p>The vault could not check your key just now. It is still kept in this tab: try again, or sign out to forget it.</p>
        <div class="actions">
          <button type="button" class="primary" onClick={check}>
            Try again
          </button>
          <button
            type="button"
            onClick={() => {
              forgetKeys();
              setState({ phase: 'signed-out' });
            }}
          >
            Sign out
          </button>
        </div>
      </main>
    );
  }
  if (state.phase === 'signed-out') {
    return (
      <SignIn
        problem={state.problem}
        onSignedIn={(key, identity) => {
          storeKey(key);
          setState({ phase: 'signed-in', key, identity });
          navigate(identity.type === 'management' ? 'applications' : 'tokens');
        }}
      />
    );
  }
  const session: Session = {
    key: state.key,
    identity: state.identity,
    tokens: state.identity.type === 'management' ? state.tokenHolder : { key: state.key, identity: state.identity },
    setTokenKey: (holder) => {
      storeTokenKey(holder?.key);
      setState({ ...state, tokenHolder: holder });
    },
    replaceKey: (key) => {
      storeKey(key);
      setState({ ...state, key });
    },
    signOut: () => {
      forgetKeys();
      setState({ phase: 'signed-out' });
      history.replaceState(null, '', location.pathname);
    },
  };
  return (
    <SessionContext.Provider value={session}>
      <Shell />
    </SessionContext.Provider>
  );
}

function Shell() {
  const route = useRoute();
  const session = useSession();
  const { app, tenant, type } = session.identity;
  const section = route[0] ?? (type === 'management' ? 'applications' : 'tokens');
  const skip = (e: Event): void => {
    // The hash holds the route: focus the content instead of following the link.
    e.preventDefault();
    document.getElementById('main')?.focus();
  };
  return (
    <>
      <a class="skip" href="#main" onClick={skip}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">svc console</span>
        <p class="who" aria-label="Signed in as">
          <span>
            <strong>{app ? app.name : `A ${type ?? 'valid'} key`}</strong> {type && <span class={`badge ${type}`}>{type}</span>}
          </span>
          <span class="muted">
            {tenant ? (
              <>
                Tenant {tenant.name ? <strong>{tenant.name}</strong> : null} <code>{tenant.id}</code>
              </>
            ) : (
              'This key may not read its application or tenant.'
            )}
          </span>
        </p>
        <button type="button" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <nav class="sections" aria-label="Sections">
        <ul>
          {SECTIONS.map(([id, label]) => (
            <li key={id}>
              <a href={href(id)} aria-current={section === id ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <PageBoundary key={route.join('/')}>
          <Page section={section} rest={route.slice(1)} />
        </PageBoundary>
      </main>
    </>
  );
}

function Page(props: { section: string; rest: string[] }) {
  switch (props.section) {
    case 'applications':
      return <ApplicationsPage rest={props.rest} />;
    case 'tokens':
      return <TokensPage rest={props.rest} />;
    case 'members':
      return <MembersPage />;
    case 'logs':
      return <LogsPage />;
    case 'webhooks':
      return <WebhooksPage rest={props.rest} />;
    case 'proxies':
      return <ProxiesPage rest={props.rest} />;
    default:
      return <ProblemBox problem={{ title: 'No such page', status: 404, detail: `The console has no page '${props.section}'.` }} />;
  }
}
