/**
 * The API documentation page: Swagger UI, its files served by svc from the swagger-ui-dist package (no CDN), started
 * by svc's own script below. No inline script or style, so the page's CSP allows neither: a script injected into the
 * page (through a crafted description, say) would not run. `img-src data:` is for the icons swagger-ui.css embeds as
 * data: URLs; `connect-src 'self'` (from default-src) lets "Try it out" call this server and nothing else.
 */
export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Where the swagger-ui-dist files are served. */
export const DOCS_ASSETS = '/docs/assets';

/** svc's own script that starts Swagger UI, served beside them. */
export const DOCS_INIT_FILE = 'svc-docs.js';

/** The files of swagger-ui-dist the page loads; no other file of the package is served. */
export const DOCS_ASSET_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'] as const;

export const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>svc API</title>
<link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui.css">
<link rel="icon" type="image/png" href="${DOCS_ASSETS}/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="${DOCS_ASSETS}/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_ASSETS}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSETS}/${DOCS_INIT_FILE}"></script>
</body>
</html>
`;

/**
 * Starts Swagger UI on /openapi.json: the base layout (the standalone preset's top bar carries an inline <style>),
 * no external validator badge, and keys typed into "Authorize" kept only in the page's memory.
 */
export const DOCS_INIT = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
