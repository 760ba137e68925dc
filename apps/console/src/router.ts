import { useEffect, useState } from 'preact/hooks';

/**
 * Client-side routes in the hash (`/console#/applications/…`): the server serves one page. Routes carry ids only;
 * keys, search queries and filters stay in memory.
 */
export function currentRoute(): string[] {
  const path = location.hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  return path.split('/').filter((part) => part !== '').map((part) => safeDecode(part));
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** The route as path segments, re-rendering on every hash change. */
export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = (): void => setRoute(currentRoute());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** A link target for path segments. */
export const href = (...parts: string[]): string => `#/${parts.map((p) => encodeURIComponent(p)).join('/')}`;

export function navigate(...parts: string[]): void {
  location.hash = href(...parts).slice(1);
}
