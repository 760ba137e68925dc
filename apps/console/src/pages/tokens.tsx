import { useEffect, useRef, useState } from 'preact/hooks';
import { call, type Page, type Problem, problemOf, seg } from '../api';
import { ConfirmButton, described, Facts, Field, ListState, Pager, ProblemBox, useLoad } from '../components/ui';
import { json, when } from '../format';
import { href, navigate } from '../router';
import { forgetOnSignOut, keyFault } from '../session';
import { identify, type KeyHolder, useSession } from '../session-context';

/** A token as the API shows it to the key in use: `data` only when that key's transform yields it. */
interface Token {
  readonly id: string;
  readonly type: string;
  readonly data?: unknown;
  readonly mask?: unknown;
  readonly fingerprint?: string;
  readonly containers?: readonly string[];
  readonly metadata?: Readonly<Record<string, string>>;
  readonly search_indexes?: readonly string[];
  readonly created_by?: string;
  readonly created_at?: string;
  readonly modified_at?: string;
  readonly expires_at?: string;
}

/**
 * The token pages: search, a token's detail, delete. Tokens are read with a private (or public) key, never a
 * management key, so a management sign-in is asked for a private key here, kept in sessionStorage beside it.
 */
export function TokensPage(props: { rest: string[] }) {
  const session = useSession();
  const holder = session.tokens;
  if (!holder) return <TokenKeyForm />;
  const [id] = props.rest;
  return (
    <>
      {session.identity.type === 'management' && <TokenKeyBar holder={holder} />}
      {id === undefined ? <TokenSearch holder={holder} /> : <TokenDetail holder={holder} id={id} />}
    </>
  );
}

function TokenKeyBar(props: { holder: KeyHolder }) {
  const session = useSession();
  const { app, type } = props.holder.identity;
  return (
    <p class="key-bar">
      Token pages use {app ? <>the key of <strong>{app.name}</strong></> : 'the key pasted here'} {type && <span class={`badge ${type}`}>{type}</span>}{' '}
      <button type="button" class="link" onClick={() => session.setTokenKey(undefined)}>
        Forget this key
      </button>
    </p>
  );
}

function TokenKeyForm() {
  const session = useSession();
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<Problem>();
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setProblem(undefined);
    const fault = keyFault(key.trim());
    if (fault) {
      setProblem({ title: 'Not a key', status: 0, errors: { token_key: [fault] } });
      return;
    }
    try {
      const identity = await identify(key.trim());
      if (identity.type === 'management') {
        setProblem({ title: 'Not a token key', status: 0, errors: { token_key: ['A management key cannot read tokens: paste a private application’s key.'] } });
        return;
      }
      session.setTokenKey({ key: key.trim(), identity });
    } catch (error) {
      const refused = problemOf(error);
      setProblem(refused.status === 401 ? { ...refused, errors: { token_key: [refused.detail ?? 'This key does not work.'] } } : refused);
    }
  };
  return (
    <section>
      <h1>Tokens</h1>
      <p>
        Management keys cannot read tokens. Paste the key of a private application whose permissions or rules allow <code>token:search</code> and{' '}
        <code>token:read</code>; results show its data as that key's transform gives it. It is kept in this tab's session storage beside your key.
      </p>
      <form onSubmit={(e) => void submit(e)} noValidate class="inline-form">
        <Field id="token-key" label="Private key for the token pages" field="token_key" problem={problem}>
          <input {...described('token-key', problem, 'token_key')} type="password" autocomplete="off" spellcheck={false} value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        </Field>
        <button type="submit" class="primary">
          Use key
        </button>
      </form>
      <ProblemBox problem={problem} fields={['token_key']} />
    </section>
  );
}

/** The position a search error names ("… at position 12"), if any. */
const positionOf = (messages: readonly string[]): number | undefined => {
  for (const message of messages) {
    const match = /position (\d+)/.exec(message);
    if (match) return Number(match[1]);
  }
  return undefined;
};

/** The search and its results live in memory only: a query may hold data, so it never goes into the URL. */
let lastSearch: { query: string; page: number } | undefined;
forgetOnSignOut(() => {
  lastSearch = undefined;
});

function TokenSearch(props: { holder: KeyHolder }) {
  const { key } = props.holder;
  const [text, setText] = useState(lastSearch?.query ?? '');
  const [search, setSearch] = useState(lastSearch ?? { query: '', page: 1 });
  const input = useRef<HTMLInputElement>(null);
  const results = useLoad(() => call<Page<Token>>(key, 'POST', '/tokens/search', { query: search.query, page: search.page, size: 20 }), [key, search]);
  useEffect(() => {
    lastSearch = search;
  }, [search]);
  const queryErrors = results.problem?.errors?.query ?? [];
  const position = positionOf(queryErrors);
  useEffect(() => {
    // Put the caret where the parser stopped.
    if (position !== undefined && input.current) {
      input.current.focus();
      input.current.setSelectionRange(position, position);
    }
  }, [position, results.problem]);
  const submit = (e: Event): void => {
    e.preventDefault();
    setSearch({ query: text, page: 1 });
  };
  return (
    <section>
      <h1>Tokens</h1>
      <form onSubmit={submit} class="search" role="search" noValidate>
        <label for="token-query">Search</label>
        <div class="search-row">
          <input
            ref={input}
            {...described('token-query', results.problem, 'query', true)}
            type="search"
            class="mono"
            autocomplete="off"
            spellcheck={false}
            placeholder='type:card_number AND metadata.team:red'
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          <button type="submit" class="primary">
            Search
          </button>
        </div>
        <p class="hint" id="token-query-hint">
          Lucene syntax: <code>type:social_security_number</code>, <code>container:/pci/</code>, <code>metadata.team:red</code>, <code>created_at:[2026-01-01 TO *]</code>,{' '}
          <code>data:6789</code> (search indexes); <code>AND</code>, <code>OR</code>, <code>NOT</code>. Empty: every token.
        </p>
        {queryErrors.length > 0 && (
          <div class="field-error query-error" id="token-query-error">
            {position !== undefined && (
              <pre class="caret" aria-hidden="true">
                {search.query}
                {'\n'}
                {' '.repeat(position)}^
              </pre>
            )}
            <p>{queryErrors.join(' ')}</p>
          </div>
        )}
      </form>
      <ListState
        loading={results.loading}
        problem={queryErrors.length > 0 ? undefined : results.problem}
        empty={queryErrors.length > 0 || (results.data?.data.length ?? 0) === 0}
        emptyText={queryErrors.length > 0 ? 'Fix the query to search.' : 'No tokens match.'}
      >
        <table class="tokens">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Type</th>
              <th scope="col">Data</th>
              <th scope="col">Containers</th>
              <th scope="col">Metadata</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {results.data?.data.map((t) => (
              <tr key={t.id}>
                <td>
                  <a href={href('tokens', t.id)}>
                    <code>{t.id}</code>
                  </a>
                </td>
                <td>{t.type}</td>
                <td class="data">{'data' in t ? <code>{json(t.data)}</code> : <span class="muted">not shown to this key</span>}</td>
                <td>{(t.containers ?? []).join(', ')}</td>
                <td>{t.metadata && Object.keys(t.metadata).length > 0 ? <code>{json(t.metadata)}</code> : '—'}</td>
                <td>{when(t.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {results.data && queryErrors.length === 0 && results.data.pagination.total_items > 0 && (
        <Pager page={results.data.pagination} onPage={(page) => setSearch({ ...search, page })} label="Result pages" />
      )}
    </section>
  );
}

function TokenDetail(props: { holder: KeyHolder; id: string }) {
  const { key } = props.holder;
  const token = useLoad(() => call<Token>(key, 'GET', `/tokens/${seg(props.id)}`), [key, props.id]);
  if (token.problem) {
    return (
      <section>
        <p class="crumbs">
          <a href={href('tokens')}>Tokens</a> /
        </p>
        <ProblemBox problem={token.problem} />
      </section>
    );
  }
  if (!token.data) return <p class="muted">Loading…</p>;
  const t = token.data;
  return (
    <section>
      <p class="crumbs">
        <a href={href('tokens')}>Tokens</a> /
      </p>
      <div class="title-row">
        <h1>
          Token <code>{t.id}</code>
        </h1>
        <ConfirmButton
          label="Delete"
          title="Delete this token?"
          message={<p>The token and its data are deleted for good; its id stops resolving everywhere.</p>}
          danger
          action={async () => {
            await call(key, 'DELETE', `/tokens/${seg(t.id)}`);
            navigate('tokens');
          }}
        />
      </div>
      <Facts
        rows={[
          ['Type', t.type],
          ['Data', 'data' in t ? <pre class="data">{json(t.data, true)}</pre> : <span class="muted">not shown to this key (its rule redacts it, or masks it and the token has no mask)</span>],
          ['Mask', t.mask === undefined ? '—' : <code>{json(t.mask)}</code>],
          ['Containers', (t.containers ?? []).join(', ') || '—'],
          ['Metadata', t.metadata && Object.keys(t.metadata).length > 0 ? <pre>{json(t.metadata, true)}</pre> : '—'],
          ['Search indexes', (t.search_indexes ?? []).length > 0 ? <ul class="inline">{t.search_indexes!.map((s) => <li key={s}><code>{s}</code></li>)}</ul> : '—'],
          ['Fingerprint', t.fingerprint ? <code>{t.fingerprint}</code> : '—'],
          ['Created', `${when(t.created_at)}${t.created_by ? ` by ${t.created_by}` : ''}`],
          ['Modified', when(t.modified_at)],
          ['Expires', when(t.expires_at)],
        ]}
      />
    </section>
  );
}
