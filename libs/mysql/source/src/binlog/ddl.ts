/**
 * What a statement of the binary log does to one table, as far as following its rows is concerned:
 * - `none`: it is not about the table, or changes nothing its rows are read with (an index, a comment);
 * - `columns-added`: columns appended after the existing ones (ALTER TABLE … ADD COLUMN without FIRST or AFTER): the
 *   key columns keep their places, so rows before and after it are read alike and the schema-change path adds them;
 * - `rewritten`: anything else (dropped, renamed, truncated, recreated, columns dropped, moved or retyped): rows
 *   before it cannot be read with the table's definition now, and rows it removed leave no row events.
 */
export type DdlEffect = { effect: 'none' } | { effect: 'columns-added' } | { effect: 'rewritten'; statement: string };

/**
 * A name as MySQL reads one ("Schema Object Names"): backquoted (a backquote doubled inside), or unquoted ASCII
 * letters, digits, `_`, `$` and the characters U+0080 to U+FFFF (`café`), which the server logs as they were typed.
 */
const NAME = '(?:`(?:[^`]|``)*`|[\\w$\\u0080-\\uffff]+)';
const QUALIFIED = `${NAME}(?:\\s*\\.\\s*${NAME})?`;

const unquote = (part: string) => (part.startsWith('`') ? part.slice(1, -1).replaceAll('``', '`') : part);

function tableOf(text: string, defaultSchema: string): { schema: string; name: string } {
  const parts = [...text.matchAll(new RegExp(NAME, 'g'))].map((match) => unquote(match[0]));
  return parts.length >= 2 ? { schema: parts[0] ?? '', name: parts[1] ?? '' } : { schema: defaultSchema, name: parts[0] ?? '' };
}

/** The (qualified) name a clause starts with: `a b`.`c` of "`a b`.`c` CASCADE". */
const leadingName = (text: string): string => new RegExp(`^${QUALIFIED}`).exec(text)?.[0] ?? '';

/**
 * Where the string literal or backquoted name starting at `at` ends (just past its closing quote). A quote doubled
 * inside reads as two literals side by side, which keeps the text as it is; a backslash escapes the next character
 * in a string literal (not in a backquoted name), as the server reads it unless NO_BACKSLASH_ESCAPES is set.
 */
function quotedEnd(text: string, at: number): number {
  const quote = text.charAt(at);
  let index = at + 1;
  while (index < text.length) {
    const character = text.charAt(index);
    if (character === '\\' && quote !== '`') index += 2;
    else if (character === quote) return index + 1;
    else index += 1;
  }
  return text.length;
}

const isQuote = (character: string) => character === "'" || character === '"' || character === '`';

/**
 * The statement without comments, on one line: whitespace outside quotes becomes one space; string literals and
 * backquoted names are kept as written (a `--`, `#` or `/*` inside one is text, not a comment). Executable comments
 * (`/*!50100 … *\/`, MariaDB's `/*M!100100 … *\/`) keep their text, as the server runs it.
 */
function normalized(statement: string): string {
  let text = '';
  let at = 0;
  let executable = false;
  const space = () => {
    if (text !== '' && !text.endsWith(' ')) text += ' ';
  };
  while (at < statement.length) {
    const character = statement.charAt(at);
    if (isQuote(character)) {
      const end = quotedEnd(statement, at);
      text += statement.slice(at, end);
      at = end;
    } else if (statement.startsWith('/*', at)) {
      const opener = /^\/\*M?!\d*/.exec(statement.slice(at, at + 12));
      if (opener !== null) {
        executable = true;
        at += opener[0].length;
      } else {
        const close = statement.indexOf('*/', at + 2);
        at = close === -1 ? statement.length : close + 2;
      }
      space();
    } else if (executable && statement.startsWith('*/', at)) {
      executable = false;
      at += 2;
      space();
    } else if (character === '#' || (statement.startsWith('--', at) && statement.charAt(at + 2) <= ' ')) {
      // `-- ` needs a space or control character after it (or the statement's end); `#` needs nothing.
      const newline = statement.indexOf('\n', at);
      at = newline === -1 ? statement.length : newline;
    } else if (/\s/.test(character)) {
      space();
      at += 1;
    } else {
      text += character;
      at += 1;
    }
  }
  return text.trim();
}

/** Splits an ALTER TABLE's clauses (or a list of tables) on commas outside parentheses and quotes. */
function clauses(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = 0;
  let at = 0;
  while (at < text.length) {
    const character = text.charAt(at);
    if (isQuote(character)) {
      at = quotedEnd(text, at);
      continue;
    }
    if (character === '(') depth += 1;
    else if (character === ')') depth -= 1;
    else if (character === ',' && depth === 0) {
      found.push(text.slice(start, at).trim());
      start = at + 1;
    }
    at += 1;
  }
  const last = text.slice(start).trim();
  if (last !== '') found.push(last);
  return found;
}

const HARMLESS_CLAUSE = new RegExp(
  [
    '^ADD (?:UNIQUE |FULLTEXT |SPATIAL )?(?:INDEX|KEY)\\b',
    `^ADD (?:CONSTRAINT\\b(?!(?: ${NAME})? PRIMARY\\b)|UNIQUE\\b|FULLTEXT\\b|SPATIAL\\b|FOREIGN KEY\\b|CHECK\\b)`,
    '^DROP (?:INDEX|KEY|FOREIGN KEY|CONSTRAINT|CHECK)\\b',
    '^(?:RENAME|ALTER) (?:INDEX|KEY)\\b',
    '^(?:ALGORITHM|LOCK|COMMENT|ENGINE|AUTO_INCREMENT|ROW_FORMAT|KEY_BLOCK_SIZE|STATS_\\w+)\\s*=?',
    '^(?:FORCE|ENABLE KEYS|DISABLE KEYS)$',
  ].join('|'),
  'i',
);
const ADD_COLUMN = /^ADD (?:COLUMN )?(?:IF NOT EXISTS )?(?!(?:INDEX|KEY|UNIQUE|PRIMARY|CONSTRAINT|FOREIGN|FULLTEXT|SPATIAL|CHECK|PERIOD|SYSTEM)\b)/i;
const PLACED = new RegExp(`(?:^| )(?:FIRST|AFTER ${NAME})$`, 'i');
/** Clauses of an ALTER TABLE that put another table's rows under a name: `RENAME [TO|AS] name`, `EXCHANGE PARTITION p WITH TABLE name`. */
const RENAMED_TO = new RegExp(`^RENAME (?:TO |AS )?(?!(?:COLUMN|INDEX|KEY)\\b)(${QUALIFIED})$`, 'i');
const EXCHANGED_WITH = new RegExp(`^EXCHANGE PARTITION ${NAME} WITH TABLE (${QUALIFIED})`, 'i');

function alterEffect(rest: string): 'none' | 'columns-added' | 'rewritten' {
  let added = false;
  for (const clause of clauses(rest)) {
    if (HARMLESS_CLAUSE.test(clause)) continue;
    if (ADD_COLUMN.test(clause) && !PLACED.test(clause) && !/\bPRIMARY KEY\b/i.test(clause)) {
      added = true;
      continue;
    }
    return 'rewritten';
  }
  return added ? 'columns-added' : 'none';
}

/** What `statement`, run with `defaultSchema` as its current database, does to `table`. */
export function ddlEffect(statement: string, defaultSchema: string, table: { schema: string; name: string }): DdlEffect {
  const text = normalized(statement);
  const isTable = (named: string) => {
    const found = tableOf(named, defaultSchema);
    return found.schema === table.schema && found.name === table.name;
  };
  const rewritten = (verb: string): DdlEffect => ({ effect: 'rewritten', statement: verb.toUpperCase() });
  const alter = new RegExp(`^(ALTER (?:ONLINE |IGNORE )*TABLE) (?:IF EXISTS )?(${QUALIFIED}) ?(.*)$`, 'is').exec(text);
  if (alter !== null) {
    const [, verb = '', name = '', rest = ''] = alter;
    if (!isTable(name)) {
      // Another table renamed to this one's name, or its rows exchanged with this one's.
      const named = clauses(rest).flatMap((clause) => (RENAMED_TO.exec(clause) ?? EXCHANGED_WITH.exec(clause))?.slice(1, 2) ?? []);
      return named.some(isTable) ? rewritten(verb) : { effect: 'none' };
    }
    const effect = alterEffect(rest);
    return effect === 'rewritten' ? rewritten(verb) : { effect };
  }
  const schemaWide = new RegExp(`^((?:DROP|CREATE OR REPLACE) (?:DATABASE|SCHEMA)) (?:IF (?:NOT )?EXISTS )?(${NAME})`, 'is').exec(text);
  if (schemaWide !== null) return unquote(schemaWide[2] ?? '') === table.schema ? rewritten(schemaWide[1] ?? '') : { effect: 'none' };
  const renamePair = new RegExp(`^(${QUALIFIED})(?: WAIT \\d+| NOWAIT)? TO (${QUALIFIED})$`, 'i');
  const lists: [RegExp, (match: RegExpExecArray) => string[]][] = [
    [/^(DROP (?:TEMPORARY )?TABLES?) (?:IF EXISTS )?(.*)$/is, (match) => clauses(match[2] ?? '').map(leadingName)],
    [new RegExp(`^(TRUNCATE(?: TABLE)?) (${QUALIFIED})`, 'is'), (match) => [match[2] ?? '']],
    [new RegExp(`^(CREATE (?:OR REPLACE )?(?:TEMPORARY )?TABLE) (?:IF NOT EXISTS )?(${QUALIFIED})`, 'is'), (match) => [match[2] ?? '']],
    [
      /^(RENAME TABLES?) (?:IF EXISTS )?(.*)$/is,
      (match) => clauses(match[2] ?? '').flatMap((pair) => renamePair.exec(pair)?.slice(1, 3) ?? pair.split(/ TO /i).map(leadingName)),
    ],
  ];
  for (const [pattern, names] of lists) {
    const match = pattern.exec(text);
    if (match === null) continue;
    return names(match).some(isTable) ? rewritten(match[1] ?? '') : { effect: 'none' };
  }
  return { effect: 'none' };
}
