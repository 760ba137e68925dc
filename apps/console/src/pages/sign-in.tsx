import { useState } from 'preact/hooks';
import { type Problem, problemOf } from '../api';
import { described, Field, ProblemBox } from '../components/ui';
import { keyFault } from '../session';
import { type Identity, identify } from '../session-context';

/**
 * Sign-in with a key: a management key for the tenant's pages, or a private key for the token pages. The key is
 * checked with `GET /applications/key` and kept in this tab's sessionStorage only.
 */
export function SignIn(props: { problem?: Problem | undefined; onSignedIn: (key: string, identity: Identity) => void }) {
  const [key, setKey] = useState('');
  const [problem, setProblem] = useState<Problem | undefined>(props.problem);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    const trimmed = key.trim();
    const fault = keyFault(trimmed);
    if (fault) {
      setProblem({ title: trimmed === '' ? 'A key is required' : 'Not a key', status: 0, errors: { key: [fault] } });
      return;
    }
    setBusy(true);
    try {
      const identity = await identify(trimmed);
      setKey('');
      props.onSignedIn(trimmed, identity);
    } catch (error) {
      const refused = problemOf(error);
      // The API's 401 names no field: the key is the only thing this form sends.
      setProblem(refused.status === 401 ? { ...refused, errors: { key: [refused.detail ?? 'This key does not work.'] } } : refused);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>svc console</h1>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="sign-in-key" label="API key" field="key" problem={problem} hint="A management key for the tenant's pages, or a private key for the token pages.">
          <input
            {...described('sign-in-key', problem, 'key', true)}
            name="key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </Field>
        <ProblemBox problem={problem} fields={['key']} />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      <p class="muted small">
        The key is kept in this tab's session storage only: never in the address, a cookie or local storage. Closing the tab or signing out forgets it.
        Every page works through the public API with this key.
      </p>
    </main>
  );
}
