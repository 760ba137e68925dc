import { useState } from 'preact/hooks';
import { type Problem, problemOf, query } from '../api';
import { described, Field, messagesFor, ProblemBox, useLoad } from '../components/ui';
import { isoFromLocal } from '../format';
import { href } from '../router';
import { type Application, useApi } from '../session-context';

/** An entry of `GET /permissions`. */
interface PermissionEntry {
  readonly type: string;
  readonly description: string;
}

/** A rule as the builder edits it: priority as typed, so a half-typed number is the API's to refuse. */
interface RuleDraft {
  readonly uid: number;
  description: string;
  priority: string;
  container: string;
  transform: string;
  permissions: string[];
}

let nextUid = 1;
const blankRule = (priority: number): RuleDraft => ({ uid: nextUid++, description: '', priority: String(priority), container: '/', transform: 'mask', permissions: [] });

/** Rules grant token permissions: the builder offers those of the type's catalogue (`token:intent:*` are not rules'). */
const isRulePermission = (permission: string): boolean => permission.startsWith('token:') && !permission.startsWith('token:intent:');

/**
 * Create (POST /applications) or edit (PUT /applications/:id) an application: name, type, permissions and, for private
 * and public applications, access rules. Permission choices come from `GET /permissions?application_type=…`; the API's
 * refusals are shown under the field they name (`rules[1].container` under that rule's container).
 */
export function ApplicationForm(props: { existing?: Application; onSaved: (app: Application) => void }) {
  const api = useApi();
  const existing = props.existing;
  const [name, setName] = useState(existing?.name ?? '');
  const [type, setType] = useState<string>(existing?.type ?? 'private');
  const [expires, setExpires] = useState('');
  const [permissions, setPermissions] = useState<string[]>([...(existing?.permissions ?? [])]);
  const [rules, setRules] = useState<RuleDraft[]>(
    existing?.rules.map((r) => ({
      uid: nextUid++,
      description: r.description ?? '',
      priority: String(r.priority),
      container: r.container ?? '',
      transform: r.transform,
      permissions: [...r.permissions],
    })) ?? [],
  );
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const catalogue = useLoad(() => api<PermissionEntry[]>('GET', `/permissions${query({ application_type: type })}`), [type]);
  const choices = catalogue.data ?? [];
  const ruleChoices = choices.filter((p) => isRulePermission(p.type));

  const changeType = (next: string): void => {
    setType(next);
    // Permissions of another type would only be refused: keep those the new type also has once its catalogue loads.
    setPermissions([]);
    if (next === 'management') setRules([]);
  };
  const toggle = (list: string[], value: string, on: boolean): string[] => (on ? [...list, value] : list.filter((v) => v !== value));
  const updateRule = (uid: number, change: Partial<RuleDraft>): void => setRules((all) => all.map((r) => (r.uid === uid ? { ...r, ...change } : r)));

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    const body = {
      name,
      ...(existing ? {} : { type }),
      permissions,
      ...(type === 'management' ? {} : {
        rules: rules.map((r) => ({
          ...(r.description.trim() === '' ? {} : { description: r.description }),
          priority: r.priority.trim() === '' || Number.isNaN(Number(r.priority)) ? Number.NaN : Number(r.priority),
          container: r.container,
          transform: r.transform,
          permissions: r.permissions,
        })),
      }),
      ...(!existing && isoFromLocal(expires) ? { expires_at: isoFromLocal(expires) } : {}),
    };
    try {
      const saved = existing
        ? await api<Application>('PUT', `/applications/${encodeURIComponent(existing.id)}`, body)
        : await api<Application>('POST', '/applications', body);
      props.onSaved(saved);
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };

  const fields = ['name', 'type', 'permissions', 'rules', 'expires_at'];
  return (
    <section>
      <p class="crumbs">
        <a href={href('applications')}>Applications</a> /{existing && <a href={href('applications', existing.id)}> {existing.name} /</a>}
      </p>
      <h1>{existing ? `Edit ${existing.name}` : 'New application'}</h1>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="app-name" label="Name" field="name" problem={problem}>
          <input {...described('app-name', problem, 'name')} value={name} onInput={(e) => setName(e.currentTarget.value)} autocomplete="off" />
        </Field>
        {!existing && (
          <>
            <Field id="app-type" label="Type" field="type" problem={problem} hint="Private: backends, may read tokens. Public: browsers, may create them. Management: the tenant's settings.">
              <select {...described('app-type', problem, 'type', true)} value={type} onChange={(e) => changeType(e.currentTarget.value)}>
                <option value="private">Private</option>
                <option value="public">Public</option>
                <option value="management">Management</option>
              </select>
            </Field>
            <Field id="app-expires" label="Expires at (optional)" field="expires_at" problem={problem}>
              <input {...described('app-expires', problem, 'expires_at')} type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
            </Field>
          </>
        )}
        <fieldset aria-describedby={messagesFor(problem, 'permissions').length > 0 ? 'app-permissions-error' : undefined}>
          <legend>Permissions</legend>
          <p class="hint">Granted on every token, whatever its container{type === 'management' ? '' : '; rules below grant per container'}.</p>
          <ProblemBox problem={catalogue.problem} />
          <div class="checks">
            {choices.map((p) => (
              <label key={p.type} class="check">
                <input type="checkbox" name="permission" value={p.type} checked={permissions.includes(p.type)} onChange={(e) => setPermissions(toggle(permissions, p.type, e.currentTarget.checked))} />
                <span>
                  <code>{p.type}</code>
                  <span class="muted">{p.description}</span>
                </span>
              </label>
            ))}
          </div>
          {messagesFor(problem, 'permissions').length > 0 && (
            <p class="field-error" id="app-permissions-error">
              {messagesFor(problem, 'permissions').join(' ')}
            </p>
          )}
        </fieldset>
        {type !== 'management' && (
          <fieldset>
            <legend>Access rules</legend>
            <p class="hint">Evaluated by priority, lowest first: the first rule whose container holds the token decides the permissions and how its data is shown.</p>
            {rules.length === 0 && <p class="empty">No rules.</p>}
            {rules.map((rule, i) => (
              <RuleRow
                key={rule.uid}
                index={i}
                rule={rule}
                choices={ruleChoices}
                problem={problem}
                onChange={(change) => updateRule(rule.uid, change)}
                onRemove={() => setRules((all) => all.filter((r) => r.uid !== rule.uid))}
                toggle={toggle}
              />
            ))}
            {problem?.errors?.rules && <p class="field-error">{problem.errors.rules.join(' ')}</p>}
            <button type="button" onClick={() => setRules((all) => [...all, blankRule(all.reduce((max, r) => Math.max(max, Number(r.priority) || 0), 0) + 1)])}>
              Add rule
            </button>
          </fieldset>
        )}
        <ProblemBox problem={problem} fields={fields} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {existing ? 'Save' : 'Create application'}
          </button>
          <a class="button" href={existing ? href('applications', existing.id) : href('applications')}>
            Cancel
          </a>
        </div>
      </form>
    </section>
  );
}

function RuleRow(props: {
  index: number;
  rule: RuleDraft;
  choices: readonly PermissionEntry[];
  problem: Problem | undefined;
  onChange: (change: Partial<RuleDraft>) => void;
  onRemove: () => void;
  toggle: (list: string[], value: string, on: boolean) => string[];
}) {
  const { index: i, rule, problem } = props;
  const at = `rules[${i}]`;
  const id = (name: string): string => `rule-${i}-${name}`;
  const permissionErrors = messagesFor(problem, `${at}.permissions`);
  return (
    <fieldset class="rule">
      <legend>Rule {i + 1}</legend>
      <div class="rule-grid">
        <Field id={id('description')} label="Description" field={`${at}.description`} problem={problem}>
          <input {...described(id('description'), problem, `${at}.description`)} value={rule.description} onInput={(e) => props.onChange({ description: e.currentTarget.value })} />
        </Field>
        <Field id={id('priority')} label="Priority" field={`${at}.priority`} problem={problem}>
          <input {...described(id('priority'), problem, `${at}.priority`)} type="number" min="1" step="1" value={rule.priority} onInput={(e) => props.onChange({ priority: e.currentTarget.value })} />
        </Field>
        <Field id={id('container')} label="Container" field={`${at}.container`} problem={problem}>
          <input {...described(id('container'), problem, `${at}.container`)} value={rule.container} placeholder="/pci/high/" onInput={(e) => props.onChange({ container: e.currentTarget.value })} />
        </Field>
        <Field id={id('transform')} label="Transform" field={`${at}.transform`} problem={problem}>
          <select {...described(id('transform'), problem, `${at}.transform`)} value={rule.transform} onChange={(e) => props.onChange({ transform: e.currentTarget.value })}>
            <option value="reveal">reveal: data in plaintext</option>
            <option value="mask">mask: data as its mask</option>
            <option value="redact">redact: no data</option>
          </select>
        </Field>
      </div>
      <fieldset class="rule-permissions" aria-describedby={permissionErrors.length > 0 ? id('permissions-error') : undefined}>
        <legend>Permissions of rule {i + 1}</legend>
        <div class="checks">
          {props.choices.map((p) => (
            <label key={p.type} class="check">
              <input
                type="checkbox"
                name={`rule-${i}-permission`}
                value={p.type}
                checked={rule.permissions.includes(p.type)}
                onChange={(e) => props.onChange({ permissions: props.toggle(rule.permissions, p.type, e.currentTarget.checked) })}
              />
              <code>{p.type}</code>
            </label>
          ))}
        </div>
        {permissionErrors.length > 0 && (
          <p class="field-error" id={id('permissions-error')}>
            {permissionErrors.join(' ')}
          </p>
        )}
      </fieldset>
      <button type="button" class="link danger" onClick={props.onRemove}>
        Remove rule {i + 1}
      </button>
    </fieldset>
  );
}
