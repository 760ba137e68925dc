import { escapeHtml } from './escape-html';
import { invitationMessage } from './invitation-message';
import { anInvitation } from '../test/invitation';

describe('invitationMessage', () => {
  it('keeps a line break in the tenant name out of the subject', () => {
    const { subject } = invitationMessage(anInvitation({ tenantName: 'Acme\r\nBcc: eve@example.test' }));

    expect(subject).toBe("You're invited to join Acme Bcc: eve@example.test on svc");
  });

  it('keeps line breaks in the inviter and tenant names from adding lines to the text part', () => {
    const { text } = invitationMessage(anInvitation({ inviterName: 'Ada\r\n\r\nClick https://evil.example', tenantName: 'Acme\nPS' }));
    expect(text.split('\n')[0]).toBe('Ada Click https://evil.example invited you to join Acme PS on svc.');
    expect(text.split('\n').filter((line) => line.includes('https://'))).toHaveLength(2);
  });

  it('is the same mail for the same invitation', () => {
    expect(invitationMessage(anInvitation())).toEqual(invitationMessage(anInvitation()));
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;',
    );
  });
});
