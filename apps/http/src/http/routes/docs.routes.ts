import { dirname } from 'node:path';
import express, { type IRouter, type NextFunction, type Request, type Response } from 'express';
import { openApiJson } from '../openapi/document';
import { DOCS_ASSET_FILES, DOCS_ASSETS, DOCS_CSP, DOCS_INIT, DOCS_INIT_FILE, DOCS_PAGE } from '../pages/docs-page';

const ASSET_PATHS = new Set(DOCS_ASSET_FILES.map((file) => `/${file}`));

/**
 * The page's files: svc's own initializer, and the files of swagger-ui-dist the page loads, found where the package is
 * installed. Nothing else of the package (its demo page, source maps) is served: other paths fall through to the 404.
 */
function assets() {
  const files = express.static(dirname(require.resolve('swagger-ui-dist/package.json')), { index: false, redirect: false, maxAge: '1h' });
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') next();
    else if (req.path === `/${DOCS_INIT_FILE}`) res.type('text/javascript; charset=utf-8').send(DOCS_INIT);
    else if (ASSET_PATHS.has(req.path)) files(req, res, next);
    else next();
  };
}

/**
 * GET /openapi.json and GET /docs (beyond.md §8): the OpenAPI document and its rendering. No key: they describe the
 * API and hold no tenant data.
 */
export function docsRoutes(router: IRouter): void {
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json; charset=utf-8').send(openApiJson());
  });

  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', DOCS_CSP);
    res.type('text/html; charset=utf-8').send(DOCS_PAGE);
  });

  router.use(DOCS_ASSETS, assets());
}
