/**
 * What a statement of the binary log does to one table, as far as following its rows is concerned:
 * - `none`: it is not about the table, or changes nothing its rows are read with (an index, a comment);
 * - `columns-added`: columns appended after the existing ones (ALTER TABLE … ADD COLUMN without FIRST or AFTER): the
 *   key columns keep their places, so rows before and after it are read alike and the schema-change path adds them;
 * - `rewritten`: anything else (dropped, renamed, truncated, recreated, columns dropped, moved or retyped): rows
 *   before it cannot be read with the table's definition now, and rows it removed leave no row events.
 */
export type DdlEffect = { effect: 'none' } | { effect: 'columns-added' } | { effect: 'rewritten'; statement: string };

const NAME = '(?:`(?:[^`]|``)*`|[\\w$]+)';
const QUALIFIED = `${NAME}(?:\\s*\\.\\s*${NAME})?`;

const unquote = (part: string) => (part.startsWith('`') ? part.slice(1, -1).replaceAll('``', '`') : part);

function tableOf(text: string, defaultSchema: string): { schema: string; name: string } {
  const parts = [...text.matchAll(new RegExp(NAME, 'g'))].map((match) => unquote(match[0]));
  return parts.length >= 2 ? { schema: parts[0] ?? '', name: parts[1] ?? '' } : { schema: defaultSchema, name: parts[0] ?? '' };
}

/** The statement without comments, on one line. Executable comments (`/*!50100 … *\/`) keep their text. */
function normalized(statement: string): string {
  return statement
    .replace(/\/\*!\d*\s?([\s\S]*?)\*\//g, ' $1 ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/(^|\s)(--\s|#)[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Splits an ALTER TABLE's clauses on commas outside parentheses and quotes. */
function clauses(text: string): string[] {
  const found: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let current = '';
  for (const character of text) {
    if (quote !== null) {
      if (character === quote) quote = null;
    } else if (character === "'" || character === '"' || character === '`') quote = character;
    else if (character === '(') depth += 1;
    else if (character === ')') depth -= 1;
    else if (character === ',' && depth === 0) {
      found.push(current.trim());
      current = '';
      continue;
    }
    current += character;
  }
  if (current.trim() !== '') found.push(current.trim());
  return found;
}

const HARMLESS_CLAUSE = new RegExp(
  [
    '^ADD (?:UNIQUE |FULLTEXT |SPATIAL )?(?:INDEX|KEY)\\b',
    '^ADD (?:CONSTRAINT\\b(?! ?\\S* ?PRIMARY)|UNIQUE\\b|FULLTEXT\\b|SPATIAL\\b|FOREIGN KEY\\b|CHECK\\b)',
    '^DROP (?:INDEX|KEY|FOREIGN KEY|CONSTRAINT|CHECK)\\b',
    '^(?:RENAME|ALTER) (?:INDEX|KEY)\\b',
    '^(?:ALGORITHM|LOCK|COMMENT|ENGINE|AUTO_INCREMENT|ROW_FORMAT|KEY_BLOCK_SIZE|STATS_\\w+)\\s*=?',
    '^(?:FORCE|ENABLE KEYS|DISABLE KEYS)$',
  ].join('|'),
  'i',
);
const ADD_COLUMN = /^ADD (?:COLUMN )?(?:IF NOT EXISTS )?(?!(?:INDEX|KEY|UNIQUE|PRIMARY|CONSTRAINT|FOREIGN|FULLTEXT|SPATIAL|CHECK|PERIOD|SYSTEM)\b)/i;
const PLACED = /\b(?:FIRST|AFTER \S+)$/i;

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
  const rewritten: DdlEffect = { effect: 'rewritten', statement: text.split(' ').slice(0, 3).join(' ').toUpperCase() };
  const alter = new RegExp(`^ALTER (?:ONLINE |IGNORE )*TABLE (?:IF EXISTS )?(${QUALIFIED}) ?(.*)$`, 'is').exec(text);
  if (alter !== null) {
    if (!isTable(alter[1] ?? '')) return { effect: 'none' };
    const effect = alterEffect(alter[2] ?? '');
    return effect === 'rewritten' ? rewritten : { effect };
  }
  const lists: [RegExp, (match: RegExpExecArray) => string[]][] = [
    [new RegExp(`^DROP (?:TEMPORARY )?TABLES? (?:IF EXISTS )?(.*)$`, 'is'), (match) => clauses(match[1] ?? '').map((name) => name.split(' ')[0] ?? '')],
    [new RegExp(`^TRUNCATE (?:TABLE )?(${QUALIFIED})`, 'is'), (match) => [match[1] ?? '']],
    [new RegExp(`^CREATE (?:OR REPLACE )?(?:TEMPORARY )?TABLE (?:IF NOT EXISTS )?(${QUALIFIED})`, 'is'), (match) => [match[1] ?? '']],
    [new RegExp(`^RENAME TABLES? (.*)$`, 'is'), (match) => clauses(match[1] ?? '').flatMap((pair) => pair.split(/ TO /i))],
  ];
  for (const [pattern, names] of lists) {
    const match = pattern.exec(text);
    if (match === null) continue;
    return names(match).some(isTable) ? rewritten : { effect: 'none' };
  }
  return { effect: 'none' };
}
