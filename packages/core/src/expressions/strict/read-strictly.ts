import { Tokenizer, TypeGuards, type TagToken, type TopLevelToken } from 'liquidjs';
import { ArgumentReader, type StrictGrammar } from './argument-reader';
import { ExpressionSyntaxError } from './expression-syntax-error';
import { isAllowedTag, TAG_ARGUMENTS } from './tag-grammar';

/** What reading a template strictly tells the engine: its size in items (tokens, values, operators, filters). */
export interface StrictReading {
  readonly size: number;
}

type BlockName = 'if' | 'unless' | 'for' | 'case' | 'capture';

interface Block {
  readonly name: BlockName;
  sawWhen: boolean;
  sawElse: boolean;
}

const OPENERS: readonly string[] = ['if', 'unless', 'for', 'case', 'capture'];
/** What may stand between `case` and its first `when` (liquidjs drops anything else there unseen). */
const CASE_HEAD_TAGS: readonly string[] = ['when', 'else', 'endcase', '#', 'comment'];
/** Tags whose body liquidjs does not parse: everything up to the first matching end tag is skipped. */
const VERBATIM: Readonly<Record<string, string>> = { comment: 'endcomment', raw: 'endraw' };

/**
 * Reads a whole template strictly, or throws an {@link ExpressionSyntaxError} (or liquidjs's own
 * TokenizationError) saying where it stops making sense. It tokenizes exactly as liquidjs's parser does,
 * reads every output and every tag's arguments with {@link ArgumentReader}, and checks the block structure
 * liquidjs's tags leave loose: no `elsif` or `when` after `else`, one `else`, nothing but `when`/`else`
 * right after `case`, `break`/`continue` only inside a loop, no arguments on `else` or end tags.
 */
export function readStrictly(template: string, grammar: StrictGrammar): StrictReading {
  const { options } = grammar.liquid;
  const tokens = new Tokenizer(template, options.operators).readTopLevelTokens(options);
  const blocks: Block[] = [];
  let size = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as TopLevelToken;
    size++;
    if (!TypeGuards.isTagToken(token)) {
      if (TypeGuards.isOutputToken(token)) {
        assertNotInCaseHead(blocks, template, token.begin);
        const reader = new ArgumentReader(template, token.contentRange, grammar);
        reader.filteredValue();
        size += reader.items;
      } else if (/\S/.test(token.getText())) {
        assertNotInCaseHead(blocks, template, token.begin);
        // Text never needs a closing delimiter: `{{ data.number }}| reveal_last: 4 }}` is a mask typed with one `}}`
        // too many, whose filter liquidjs would print as text after the whole value.
        const stray = token.getText().search(/\}\}|%\}/);
        if (stray !== -1) throw new ExpressionSyntaxError(`a stray '${token.getText().slice(stray, stray + 2)}' outside a tag`, template, token.begin + stray);
      }
      continue;
    }
    if (!CASE_HEAD_TAGS.includes(token.name)) assertNotInCaseHead(blocks, template, token.begin);
    size += readTag(token, template, grammar);
    const end = VERBATIM[token.name];
    if (end !== undefined) {
      const close = tokens.findIndex((t, j) => j > i && TypeGuards.isTagToken(t) && t.name === end);
      if (close === -1) throw new ExpressionSyntaxError(`'${token.name}' is not closed`, template, token.begin);
      size += close - i + readTag(tokens[close] as TagToken, template, grammar);
      i = close;
      continue;
    }
    nest(blocks, token, template);
  }
  const open = blocks.at(-1);
  if (open) throw new ExpressionSyntaxError(`'${open.name}' is not closed`, template, template.length);
  return { size };
}

function readTag(token: TagToken, template: string, grammar: StrictGrammar): number {
  const { name } = token;
  if (!isAllowedTag(name)) throw new ExpressionSyntaxError(`unknown tag '${name}'`, template, token.begin);
  const end = token.contentRange[1];
  const reader = new ArgumentReader(template, [end - token.args.length, end], grammar);
  TAG_ARGUMENTS[name](reader);
  return reader.items;
}

function nest(blocks: Block[], token: TagToken, template: string): void {
  const { name } = token;
  const top = blocks.at(-1);
  const refuse = (problem: string): never => {
    throw new ExpressionSyntaxError(problem, template, token.begin);
  };
  if (OPENERS.includes(name)) {
    blocks.push({ name: name as BlockName, sawWhen: false, sawElse: false });
  } else if (name === 'elsif') {
    if (top?.name !== 'if' && top?.name !== 'unless') refuse(`'elsif' outside 'if' or 'unless'`);
    if (top?.sawElse) refuse(`'elsif' after 'else'`);
  } else if (name === 'when') {
    if (top?.name !== 'case') refuse(`'when' outside 'case'`);
    if (top?.sawElse) refuse(`'when' after 'else'`);
    if (top) top.sawWhen = true;
  } else if (name === 'else') {
    if (!top || top.name === 'capture') refuse(`'else' outside 'if', 'unless', 'for' or 'case'`);
    if (top?.sawElse) refuse(`a second 'else'`);
    if (top) top.sawElse = true;
  } else if (name.startsWith('end')) {
    const opened = name.slice('end'.length);
    if (top?.name !== opened) refuse(top ? `'${name}' cannot close '${top.name}'` : `'${name}' without '${opened}'`);
    blocks.pop();
  } else if ((name === 'break' || name === 'continue') && !blocks.some((b) => b.name === 'for')) {
    refuse(`'${name}' outside a 'for' loop`);
  }
}

function assertNotInCaseHead(blocks: readonly Block[], template: string, at: number): void {
  const top = blocks.at(-1);
  if (top?.name === 'case' && !top.sawWhen && !top.sawElse) {
    throw new ExpressionSyntaxError(`only 'when' or 'else' may follow 'case'`, template, at);
  }
}
