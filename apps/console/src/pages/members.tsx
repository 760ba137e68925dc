import { useState } from 'preact/hooks';
import { type Page, type Problem, problemOf, query, seg } from '../api';
import { ConfirmButton, described, Field, ListState, Pager, ProblemBox, useLoad } from '../components/ui';
import { when } from '../format';
import { useApi } from '../session-context';

interface Member {
  readonly id: string;
  readonly role: string;
  readonly user: { readonly id: string; readonly email: string; readonly first_name?: string; readonly last_name?: string };
  readonly created_at: string;
}

interface Invitation {
  readonly id: string;
  readonly email: string;
  readonly status: string;
  readonly expires_at: string;
  readonly created_at: string;
  readonly modified_at?: string;
}

/** The tenant's members and invitations: list both, invite by e-mail, resend an invitation, remove either. */
export function MembersPage() {
  const api = useApi();
  const [memberPage, setMemberPage] = useState(1);
  const [invitationPage, setInvitationPage] = useState(1);
  const [status, setStatus] = useState('');
  const members = useLoad(() => api<Page<Member>>('GET', `/tenants/self/members${query({ page: memberPage, size: 20 })}`), [memberPage]);
  const invitations = useLoad(
    () => api<Page<Invitation>>('GET', `/tenants/self/invitations${query({ status, page: invitationPage, size: 20 })}`),
    [status, invitationPage],
  );
  const [notice, setNotice] = useState('');
  const [rowProblem, setRowProblem] = useState<Problem>();
  // The invitation being resent: its button waits, so a double click sends one e-mail (each resend replaces the link).
  const [resending, setResending] = useState<string>();

  return (
    <section>
      <h1>Members</h1>
      <ListState loading={members.loading} problem={members.problem} empty={(members.data?.data.length ?? 0) === 0} emptyText="No members.">
        <table>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Member since</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {members.data?.data.map((m) => (
              <tr key={m.id}>
                <td>{m.user.email}</td>
                <td>{[m.user.first_name, m.user.last_name].filter(Boolean).join(' ') || '—'}</td>
                <td>{m.role}</td>
                <td>{when(m.created_at)}</td>
                <td>
                  <ConfirmButton
                    label="Remove"
                    title={`Remove ${m.user.email}?`}
                    message={<p>They lose access to this tenant. The tenant's owner cannot be removed.</p>}
                    danger
                    action={async () => {
                      await api('DELETE', `/tenants/self/members/${seg(m.id)}`);
                      members.reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {members.data && members.data.pagination.total_items > 0 && <Pager page={members.data.pagination} onPage={setMemberPage} label="Member pages" />}

      <h2>Invite someone</h2>
      <InviteForm
        onInvited={(invitation) => {
          setNotice(`Invitation sent to ${invitation.email}.`);
          invitations.reload();
        }}
      />
      <p class="notice" aria-live="polite">
        {notice}
      </p>

      <div class="title-row">
        <h2>Invitations</h2>
        <div class="filters">
          <label for="invitation-status">Status</label>
          <select
            id="invitation-status"
            value={status}
            onChange={(e) => {
              setStatus(e.currentTarget.value);
              setInvitationPage(1);
            }}
          >
            <option value="">Any</option>
            <option value="PENDING">Pending</option>
            <option value="EXPIRED">Expired</option>
          </select>
        </div>
      </div>
      <ProblemBox problem={rowProblem} />
      <ListState loading={invitations.loading} problem={invitations.problem} empty={(invitations.data?.data.length ?? 0) === 0} emptyText="No invitations.">
        <table>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Status</th>
              <th scope="col">Expires</th>
              <th scope="col">Sent</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invitations.data?.data.map((inv) => (
              <tr key={inv.id}>
                <td>{inv.email}</td>
                <td>{inv.status}</td>
                <td>{when(inv.expires_at)}</td>
                <td>{when(inv.modified_at ?? inv.created_at)}</td>
                <td>
                  <div class="row-actions">
                  <button
                    type="button"
                    disabled={resending === inv.id}
                    onClick={() => {
                      setRowProblem(undefined);
                      setResending(inv.id);
                      void api<Invitation>('POST', `/tenants/self/invitations/${seg(inv.id)}/resend`)
                        .then(
                          () => {
                            setNotice(`Invitation resent to ${inv.email}.`);
                            invitations.reload();
                          },
                          (error: unknown) => setRowProblem(problemOf(error)),
                        )
                        .finally(() => setResending(undefined));
                    }}
                  >
                    Resend
                  </button>
                  <ConfirmButton
                    label="Delete"
                    title={`Delete the invitation of ${inv.email}?`}
                    message={<p>Its link stops working.</p>}
                    danger
                    action={async () => {
                      await api('DELETE', `/tenants/self/invitations/${seg(inv.id)}`);
                      invitations.reload();
                    }}
                  />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {invitations.data && invitations.data.pagination.total_items > 0 && (
        <Pager page={invitations.data.pagination} onPage={setInvitationPage} label="Invitation pages" />
      )}
    </section>
  );
}

function InviteForm(props: { onInvited: (invitation: Invitation) => void }) {
  const api = useApi();
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<Problem>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      props.onInvited(await api<Invitation>('POST', '/tenants/self/invitations', { email }));
      setEmail('');
    } catch (error) {
      setProblem(problemOf(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} noValidate class="inline-form">
      <Field id="invite-email" label="E-mail" field="email" problem={problem}>
        <input {...described('invite-email', problem, 'email')} type="email" autocomplete="off" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <button type="submit" class="primary" disabled={busy}>
        Invite
      </button>
      <ProblemBox problem={problem} fields={['email']} />
    </form>
  );
}
