import { ValidationError } from '../shared/errors';

const FORBIDDEN = /[#/\\+?[\]|&=%<>{}^\s]/;

/** A literal token id: 3–400 characters, none of `# / \ + ? [ ] | & = % < > { } ^` or whitespace. */
export function validateTokenId(id: string, field = 'id'): string {
  if (id.length < 3 || id.length > 400) throw ValidationError.field(field, 'The id must be 3 to 400 characters.');
  if (FORBIDDEN.test(id)) throw ValidationError.field(field, 'The id may not contain # / \\ + ? [ ] | & = % < > { } ^ or spaces.');
  return id;
}
