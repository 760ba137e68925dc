const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Pages carry no script and load nothing: a CSP that forbids everything but inline styles and posting to us. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; background: #f5f6f8; color: #1d2330; margin: 0; }
  main { max-width: 420px; margin: 12vh auto; background: #fff; border-radius: 12px; padding: 32px;
         box-shadow: 0 1px 3px rgba(0,0,0,.08), 0 8px 24px rgba(0,0,0,.06); }
  h1 { font-size: 1.35rem; margin: 0 0 8px; }
  p { line-height: 1.5; color: #4a5366; }
  label { display: block; font-size: .9rem; margin: 16px 0 6px; color: #1d2330; }
  input { width: 100%; box-sizing: border-box; padding: 10px 12px; border: 1px solid #cfd5e0; border-radius: 8px; font-size: 1rem; }
  button { margin-top: 24px; width: 100%; padding: 12px; border: 0; border-radius: 8px; background: #2f5bea; color: #fff;
           font-size: 1rem; font-weight: 600; cursor: pointer; }
  .muted { font-size: .85rem; color: #7a8396; }
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

/** The page an invitation link opens: the tenant, the invitee's name fields and one button. */
export function acceptPage(input: { tenantName: string; email: string; token: string; expiresAt: Date }): string {
  return layout(
    `Join ${input.tenantName}`,
    `<h1>Join ${escapeHtml(input.tenantName)}</h1>
<p>You have been invited to join <strong>${escapeHtml(input.tenantName)}</strong> as <strong>${escapeHtml(input.email)}</strong>.</p>
<form method="post" action="accept">
  <input type="hidden" name="token" value="${escapeHtml(input.token)}">
  <label for="first_name">First name</label>
  <input id="first_name" name="first_name" autocomplete="given-name" maxlength="100">
  <label for="last_name">Last name</label>
  <input id="last_name" name="last_name" autocomplete="family-name" maxlength="100">
  <button type="submit">Accept invitation</button>
</form>
<p class="muted">This invitation expires ${escapeHtml(input.expiresAt.toUTCString())}.</p>`,
  );
}

export function acceptedPage(tenantName: string): string {
  return layout('Invitation accepted', `<h1>Welcome aboard</h1><p>You are now a member of <strong>${escapeHtml(tenantName)}</strong>.</p>`);
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
