import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useErrorBoundary, useRef, useState } from 'preact/hooks';
import { type Page, type Problem, problemOf } from '../api';

/** The messages a problem names for `field`: the field itself, its items (`field[0]`) and members (`field.x`). */
export function messagesFor(problem: Problem | undefined, field: string): string[] {
  if (!problem?.errors) return [];
  return Object.entries(problem.errors)
    .filter(([name]) => name === field || name.startsWith(`${field}[`) || name.startsWith(`${field}.`))
    .flatMap(([name, messages]) => (name === field ? [...messages] : messages.map((m) => `${name}: ${m}`)));
}

/** Field errors no shown field claims, by name: they go in the summary above the form. */
function unclaimed(problem: Problem, fields: readonly string[]): Array<[string, readonly string[]]> {
  return Object.entries(problem.errors ?? {}).filter(
    ([name]) => !fields.some((field) => name === field || name.startsWith(`${field}[`) || name.startsWith(`${field}.`)),
  );
}

/** The ARIA attributes of an input whose errors a {@link Field} shows. */
export function described(id: string, problem: Problem | undefined, field: string, hint = false) {
  const invalid = messagesFor(problem, field).length > 0;
  const ids = [hint ? `${id}-hint` : '', invalid ? `${id}-error` : ''].filter((x) => x !== '').join(' ');
  return { id, 'aria-invalid': invalid ? ('true' as const) : undefined, 'aria-describedby': ids === '' ? undefined : ids };
}

/** A labelled input with its hint and the API's messages for it, right under it. */
export function Field(props: { id: string; label: string; field: string; problem?: Problem | undefined; hint?: string; children: ComponentChildren }) {
  const messages = messagesFor(props.problem, props.field);
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      )}
      {messages.length > 0 && (
        <p class="field-error" id={`${props.id}-error`}>
          {messages.join(' ')}
        </p>
      )}
    </div>
  );
}

/**
 * The problem of the last call, announced: its title and detail, and the field errors no field on the page shows
 * (`fields` lists those the page shows under their inputs). The live region is always there, so a new message is read.
 */
export function ProblemBox(props: { problem?: Problem | undefined; fields?: readonly string[] }) {
  const { problem } = props;
  const rest = problem ? unclaimed(problem, props.fields ?? []) : [];
  // Every message already stands under its field: the summary only says so.
  const allShown = problem?.errors !== undefined && Object.keys(problem.errors).length > 0 && rest.length === 0;
  return (
    <div class="live" aria-live="assertive" role="alert">
      {problem && (
        <div class="problem">
          <strong>
            {problem.title}
            {problem.status > 0 ? ` (${problem.status})` : ''}
          </strong>
          {allShown ? <span> See the marked fields.</span> : problem.detail && problem.detail !== problem.title && <span> {problem.detail}</span>}
          {rest.length > 0 && (
            <ul>
              {rest.map(([name, messages]) => (
                <li key={name}>
                  <code>{name}</code>: {messages.join(' ')}
                </li>
              ))}
            </ul>
          )}
          {problem.trace_id && <span class="muted"> Trace id {problem.trace_id}.</span>}
        </div>
      )}
    </div>
  );
}

/** What a load gives a page: the answer, or the problem, and a way to load again. */
export interface Loaded<T> {
  readonly data?: T | undefined;
  readonly problem?: Problem | undefined;
  readonly loading: boolean;
  readonly reload: () => void;
}

/** Loads with `load` whenever `deps` change; an answer that arrives after a newer load started is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; problem?: Problem; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const mine = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    // A load that throws before its first await (a path it refuses to build) is a refusal like any other.
    new Promise<T>((resolve) => resolve(load())).then(
      (data) => mine === latest.current && setState({ data, loading: false }),
      (error: unknown) => mine === latest.current && setState({ problem: problemOf(error), loading: false }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}

/**
 * "Page 2 of 5 · 83 items" with Previous and Next. A page past the end (its last items deleted meanwhile, or a search
 * that now matches less) steps back to the last page, instead of an empty list under "Page 2 of 1".
 */
export function Pager(props: { page: Page<unknown>['pagination']; onPage: (page: number) => void; label?: string }) {
  const { page_number: number, total_pages: pages, total_items: total } = props.page;
  const last = Math.max(pages, 1);
  // Once per answer past the end: the callback is often a new function each render.
  const onPage = useRef(props.onPage);
  onPage.current = props.onPage;
  useEffect(() => {
    if (number > last) onPage.current(last);
  }, [number, last]);
  return (
    <nav class="pager" aria-label={props.label ?? 'Pages'}>
      <button type="button" disabled={number <= 1} onClick={() => props.onPage(number - 1)}>
        Previous
      </button>
      <span>
        Page {Math.min(number, Math.max(pages, 1))} of {Math.max(pages, 1)} · {total} {total === 1 ? 'item' : 'items'}
      </span>
      <button type="button" disabled={number >= pages} onClick={() => props.onPage(number + 1)}>
        Next
      </button>
    </nav>
  );
}

/**
 * A page that throws while rendering (an answer of a shape it does not expect, from a proxy in front of the vault, say)
 * shows why instead of leaving a blank page. Keyed by the route where it is used, so another page renders afresh.
 */
export function PageBoundary(props: { children: ComponentChildren }) {
  const [error] = useErrorBoundary();
  if (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return <ProblemBox problem={{ title: 'This page could not be shown', status: 0, detail: `${detail}. Open another page, or reload this one.` }} />;
  }
  return <>{props.children}</>;
}

/** A list's states: loading, a problem, empty, or its rows. */
export function ListState(props: { loading: boolean; problem?: Problem | undefined; empty: boolean; emptyText: string; children: ComponentChildren }) {
  if (props.problem) return <ProblemBox problem={props.problem} />;
  if (props.loading && props.empty) return <p class="muted">Loading…</p>;
  if (props.empty) return <p class="empty">{props.emptyText}</p>;
  return <>{props.children}</>;
}

/**
 * A button that asks first, in a modal `<dialog>` (Escape or Cancel closes it, focus stays in it while open), then
 * runs `action`; a refusal is shown in the dialog.
 */
export function ConfirmButton(props: {
  label: string;
  title: string;
  message: ComponentChildren;
  confirmLabel?: string;
  danger?: boolean;
  action: () => Promise<void>;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const open = (): void => {
    setProblem(undefined);
    dialog.current?.showModal();
  };
  const confirm = async (): Promise<void> => {
    setBusy(true);
    try {
      await props.action();
      dialog.current?.close();
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class={props.danger ? 'danger' : undefined} onClick={open}>
        {props.label}
      </button>
      <dialog ref={dialog} aria-label={props.title}>
        <h2>{props.title}</h2>
        <div class="dialog-body">{props.message}</div>
        <ProblemBox problem={problem} />
        <div class="actions">
          <button type="button" class={props.danger ? 'danger' : 'primary'} disabled={busy} onClick={() => void confirm()}>
            {props.confirmLabel ?? props.label}
          </button>
          {/* Cancel has the focus when the dialog opens: Enter alone never deletes or revokes. */}
          <button type="button" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A secret shown the one time the API gives it, with a copy button. */
export function ShownOnce(props: { id: string; label: string; value: string; children?: ComponentChildren }) {
  const [copied, setCopied] = useState<string>('');
  const input = useRef<HTMLInputElement>(null);
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('Copied to the clipboard.');
    } catch {
      input.current?.select();
      setCopied('Could not reach the clipboard: the value is selected, copy it with Ctrl+C.');
    }
  };
  return (
    <section class="shown-once" aria-labelledby={`${props.id}-title`}>
      <h3 id={`${props.id}-title`}>{props.label}</h3>
      <p>This is the only time it is shown: the vault keeps only its hash. Copy it now.</p>
      <div class="copy">
        <input ref={input} id={props.id} type="text" readOnly value={props.value} aria-label={props.label} autocomplete="off" spellcheck={false} />
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p class="muted" aria-live="polite">
        {copied}
      </p>
      {props.children}
    </section>
  );
}

/** Label/value pairs. */
export function Facts(props: { rows: ReadonlyArray<readonly [string, ComponentChildren]> }) {
  return (
    <dl class="facts">
      {props.rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
