import { queryError } from './query-error';
import type { QueryOperand, RangeBound, RangeOperand, TermOperand } from './query-tokens';
import { containerPath, exactBounds, lowerBound, parseQueryDate, upperBound, type QueryDate } from './query-values';
import type { DateBounds, DateQueryField, TermQueryField, TokenQuery } from './token-query';

const TERM_FIELDS: readonly string[] = ['id', 'type', 'fingerprint', 'created_by', 'modified_by'] satisfies TermQueryField[];
const DATE_FIELDS: readonly string[] = ['created_at', 'modified_at'] satisfies DateQueryField[];
const KNOWN_FIELDS: readonly string[] = [...TERM_FIELDS, ...DATE_FIELDS, 'data', 'container'];
const METADATA = 'metadata';
const DATE_HINT = 'Invalid date; use an ISO 8601 date or date-time such as 2024-01-31 or 2024-01-31T10:00:00Z';

/** Turns one `field:value` or `field:[a TO b]` into its query, checking the field and the value. */
export function toTermQuery(operand: QueryOperand): TokenQuery {
  const { field } = operand;
  const isMetadata = field === METADATA || field.startsWith(`${METADATA}.`);
  if (!isMetadata && !KNOWN_FIELDS.includes(field)) {
    throw queryError(`Unknown field '${field}'`, operand.position);
  }
  if (isMetadata && field.length <= METADATA.length + 1) {
    throw queryError('Metadata terms need a key, as in metadata.<key>:<value>,', operand.position);
  }
  if (DATE_FIELDS.includes(field)) return dateQuery(field as DateQueryField, operand);
  if (operand.kind === 'range') {
    throw queryError('Ranges are only supported on created_at and modified_at', operand.rangePosition);
  }
  if (field === 'container') return containerQuery(operand);
  const value = plainValue(operand);
  if (field === 'data') return { kind: 'data', value: value.toLowerCase() };
  if (isMetadata) {
    return { kind: 'metadata', key: field.slice(METADATA.length + 1).toLowerCase(), value: value.toLowerCase() };
  }
  return { kind: 'term', field: field as TermQueryField, value };
}

/** The value of a non-container term: no regex (`/…/`) and no wildcard unless quoted. */
function plainValue(operand: TermOperand): string {
  const { value, quoted, wildcard } = operand;
  if (!quoted && value.length > 1 && value.startsWith('/') && value.endsWith('/')) {
    throw queryError('Regular expressions are not supported', operand.valuePositions[0]!);
  }
  if (wildcard !== undefined) {
    throw queryError(`Wildcards are not supported on field '${operand.field}'`, operand.valuePositions[wildcard]!);
  }
  return value;
}

function containerQuery(operand: TermOperand): TokenQuery {
  const { value, valuePositions } = operand;
  const star = value.indexOf('*');
  const prefix = star !== -1;
  if (prefix && star !== value.length - 1) {
    throw queryError('A container wildcard may only be the last character', valuePositions[star]!);
  }
  if (prefix && !value.endsWith('/*')) {
    throw queryError("A container wildcard must follow '/', as in /pci/*,", valuePositions[star]!);
  }
  const path = containerPath(prefix ? value.slice(0, -1) : value);
  if (path === undefined) {
    throw queryError('Invalid container path; use /segment/…/ with segments of a-z, 0-9, _ and -', valuePositions[0]!);
  }
  return { kind: 'container', path, prefix };
}

function dateQuery(field: DateQueryField, operand: QueryOperand): TokenQuery {
  if (operand.kind === 'range') return { kind: 'range', field, ...rangeBounds(operand) };
  const value = plainValue(operand);
  const date = parseQueryDate(value);
  if (!date) throw queryError(DATE_HINT, operand.valuePositions[0]!);
  return { kind: 'range', field, ...exactBounds(date) };
}

function rangeBounds(operand: RangeOperand): DateBounds {
  const min = boundDate(operand.min);
  const max = boundDate(operand.max);
  return {
    ...(min && lowerBound(min, operand.minInclusive)),
    ...(max && upperBound(max, operand.maxInclusive)),
  };
}

function boundDate(bound: RangeBound): QueryDate | undefined {
  if (bound.text === '*') return undefined;
  const date = parseQueryDate(bound.text);
  if (!date) throw queryError(DATE_HINT, bound.position);
  return date;
}
