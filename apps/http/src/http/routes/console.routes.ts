import type { IRouter, NextFunction, Request, Response } from 'express';
import { HTTP_PROBLEMS, HttpProblemError } from '../problem';
import { CONSOLE_FILES, CONSOLE_HEADERS, type ConsolePath, consoleFile } from '../pages/console-page';

const isConsolePath = (path: string): path is ConsolePath => Object.prototype.hasOwnProperty.call(CONSOLE_FILES, path);

/** Sends a console file, or a 404 naming the missing build (a checkout where `npm run build` has not run). */
function send(path: ConsolePath, res: Response, next: NextFunction): void {
  const file = consoleFile(path);
  if (!file) {
    next(new HttpProblemError(HTTP_PROBLEMS.notFound, 'The console is not built here: run `npm run build`.'));
    return;
  }
  // The page is never cached (it names the files it loads); the files are revalidated, so an upgrade shows at once.
  res.setHeader('Cache-Control', path === '/' ? 'no-store' : 'no-cache');
  res.type(file.type).send(file.body);
}

/**
 * GET /console: the operator console (issue 16), one page routed by its hash, and its two files. No key: the page
 * holds no tenant data; it asks for a key and calls the public API with it. Every answer under /console carries the
 * console's CSP; any other path there is the usual 404.
 */
export function consoleRoutes(router: IRouter): void {
  router.use('/console', (req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of Object.entries(CONSOLE_HEADERS)) res.setHeader(name, value);
    if (req.path === '/' || !isConsolePath(req.path)) next();
    else if (req.method === 'GET' || req.method === 'HEAD') send(req.path, res, next);
    else {
      // A file is there, for other methods: the 405 the page itself answers, not a 404.
      res.setHeader('Allow', 'GET, HEAD');
      next(new HttpProblemError(HTTP_PROBLEMS.methodNotAllowed, 'This resource answers GET, HEAD.'));
    }
  });

  router.get('/console', (_req, res, next) => send('/', res, next));
}
