import { ValidationError } from '../shared/errors';
import { isWellFormedText, characterCount } from '../shared/text';
import { TOKEN_FORM } from '../detokenization/grammar';

// decisions.md §5 forbids these; control characters are refused too (an id travels in URL paths and logs).
const FORBIDDEN = /[#/\\+?[\]|&=%<>{}^\u0000-\u001f\u007f]/;

/**
 * A literal token id: 3–400 characters, none of `# / \ + ? [ ] | & = % < > { } ^` nor a control character, and
 * well-formed UTF-16. Spaces are allowed inside (an alias of space-separated data keeps them), not at either end, and
 * an id may not begin with `token:`: detokenization could not name either. A lone surrogate is refused:
 * stores keep text as UTF-8, so such an id would come back changed and no longer match its ciphertext's binding.
 */
export function validateTokenId(id: string, field = 'id'): string {
  const length = characterCount(id);
  if (length < 3 || length > 400) throw ValidationError.field(field, 'The id must be 3 to 400 characters.');
  if (FORBIDDEN.test(id)) throw ValidationError.field(field, 'The id may not contain # / \\ + ? [ ] | & = % < > { } ^ or control characters.');
  if (!isWellFormedText(id)) throw ValidationError.field(field, 'The id must be well-formed Unicode text (no lone surrogates).');
  // A detokenization expression names a token as `{{ <id> }}`, trimmed, and reads `{{ token: <id> }}` as the whole
  // token: an id with spaces at either end, or one that starts with `token:`, could be created but never named.
  if (id.trim() !== id) throw ValidationError.field(field, 'The id may not begin or end with a space.');
  if (TOKEN_FORM.test(id)) throw ValidationError.field(field, "The id may not begin with 'token:', which detokenization reads as the whole-token form.");
  return id;
}
