const CONTAINER = /^\/(?:[a-z0-9_-]+\/)*$/;

/**
 * Normalizes a container path: lower-cased, with leading and trailing `/`, segments of `[a-z0-9_-]`.
 * Returns undefined when the path cannot be a container.
 */
export function normalizeContainer(path: string): string | undefined {
  // ASCII only, checked before lower-casing: `toLowerCase` folds a few other characters into ASCII ones (the Kelvin
  // sign K becomes `k`, the dotted capital İ becomes `i̇`), and a container must be what the caller wrote.
  if (!/^[\x20-\x7e]*$/.test(path)) return undefined;
  let value = path.trim().toLowerCase();
  if (value.length === 0 || value.length > 400) return undefined;
  if (!value.startsWith('/')) value = `/${value}`;
  if (!value.endsWith('/')) value = `${value}/`;
  return CONTAINER.test(value) ? value : undefined;
}

/** True when `container` is `scope` or lies below it (`/pci/high/` is within `/pci/`). */
export function isWithinContainer(container: string, scope: string): boolean {
  return container.startsWith(scope);
}
