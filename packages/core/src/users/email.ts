import { ValidationError } from '../shared/errors';

// RFC 5322 addr-spec in its common dot-atom form: local@domain, with the atext characters the RFC allows,
// no leading/trailing/double dots, and a domain of dot-separated labels.
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
// The local part is a dot-atom or a quoted string (`"john smith"@example.com`), as RFC 5322 allows.
const LOCAL = `(?:${ATEXT}(?:\\.${ATEXT})*|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*")`;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL = new RegExp(`^${LOCAL}@${LABEL}(?:\\.${LABEL})*$`);

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value) && value.slice(0, value.lastIndexOf('@')).length <= 64;
}

/** A well-formed address, lower-cased; a 400 on `field` otherwise. */
export function normalizeEmail(field: string, value: string): string {
  const email = value.trim();
  if (!isEmail(email)) throw ValidationError.field(field, 'Must be a well-formed e-mail address.');
  return email.toLowerCase();
}
