import type { TokenQuery } from './token-query';

/** The longest query text an audit event holds; a longer one is cut with an ellipsis. */
export const MAX_AUDITED_QUERY = 1_000;

const quoted = (value: string): string => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`;

/**
 * A parsed query written back as Lucene text for the audit log (beyond.md §5), with every `data:` value replaced by
 * `***`: searched data is token data, and the log never holds it. Written from the parsed query, never from the
 * request's text, so no spelling of a data term can slip through.
 */
export function auditedQueryText(query: TokenQuery): string {
  const text = write(query);
  return text.length > MAX_AUDITED_QUERY ? `${text.slice(0, MAX_AUDITED_QUERY)}…` : text;
}

function write(query: TokenQuery): string {
  switch (query.kind) {
    case 'all':
      return '*';
    case 'term':
      return `${query.field}:${quoted(query.value)}`;
    case 'data':
      return 'data:***';
    case 'metadata':
      return `metadata.${query.key}:${quoted(query.value)}`;
    case 'container':
      return `containers:${quoted(query.path)}${query.prefix ? '*' : ''}`;
    case 'range': {
      const low = query.gte ?? query.gt;
      const high = query.lte ?? query.lt;
      const open = query.gt ? '{' : '[';
      const close = query.lt ? '}' : ']';
      return `${query.field}:${open}${low?.toISOString() ?? '*'} TO ${high?.toISOString() ?? '*'}${close}`;
    }
    case 'and':
    case 'or':
      return `(${query.items.map(write).join(query.kind === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      return `NOT ${write(query.item)}`;
    case 'id_prefix':
      return `id:${quoted(query.value)}*`;
  }
}
