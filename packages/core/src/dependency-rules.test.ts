import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The hexagon's rule, checked rather than remembered: core imports no I/O library and no adapter. */
const FORBIDDEN = ['express', 'zod', 'mongodb', 'better-sqlite3', 'nodemailer', 'tsyringe', '@svc/memory', '@svc/sqlite', '@svc/mongo', '@svc/mail', '@svc/http'];

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

describe('core dependency rules', () => {
  const files = [...sources(join(__dirname)), ...sources(join(__dirname, '..', 'testing'))];

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(FORBIDDEN)('never imports %s', (module) => {
    const offenders = files.filter((file) => {
      const text = readFileSync(file, 'utf8');
      return new RegExp(`from '${module}(/[^']*)?'|require\\('${module}(/[^']*)?'\\)`).test(text);
    });
    expect(offenders).toEqual([]);
  });
});
