const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** Reverses the escaping `escapeHtml` does, to compare attribute values with what was sent. */
export function unescapeHtml(html: string): string {
  return html.replace(/&(amp|lt|gt|quot|#39);/g, (_entity, name: string) => ENTITIES[name] ?? '');
}

/** Every `href` of an `<a>` in the document, unescaped. */
export function linkTargets(html: string): string[] {
  return [...html.matchAll(/<a\s[^>]*href="([^"]*)"/g)].map((match) => unescapeHtml(match[1] ?? ''));
}
