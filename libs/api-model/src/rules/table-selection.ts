import { readTableRef, tableKey } from '@svc/contracts';
import { type FieldRule, quoted, shapeProblem } from './field-rule';

const LIST_SYNTAX = 'Write All or a comma-separated list of [schema].[table]';

type ListParse = { ok: true; tables: string[] } | { ok: false; reason: string };

/**
 * Reads `[schema].[table], [schema].[table]`. Whitespace around commas is fine; inside brackets it is part of
 * the name, and `]]` stands for a `]` (SQL Server quoting), so a comma inside brackets does not split. Each
 * table comes back as the pipeline's key of that table (`tableKey`), so the list and the keys cannot disagree.
 */
export function parseTableList(text: string): ListParse {
  const tables: string[] = [];
  let at = skipSpaces(text, 0);
  if (at === text.length) return { ok: true, tables };
  for (let entry = 1; ; entry += 1) {
    const entryStart = at;
    const table = readTableRef(text, at);
    at = table.ok ? skipSpaces(text, table.end) : at;
    if (!table.ok || (at < text.length && text[at] !== ',')) {
      const entryText = entryAt(text, entryStart);
      const reason = table.ok || /^all$/i.test(entryText) ? syntaxReason(entryText) : table.reason;
      return { ok: false, reason: `entry ${entry} (${quoted(entryText)}) ${reason}` };
    }
    tables.push(tableKey(table.table));
    if (at === text.length) return { ok: true, tables };
    at = skipSpaces(text, at + 1);
    if (at === text.length || text[at] === ',') return { ok: false, reason: `entry ${entry + 1} is empty` };
  }
}

function syntaxReason(entryText: string): string {
  return /^all$/i.test(entryText) ? 'stands alone: All is not combined with tables' : 'must be written [schema].[table]';
}

function entryAt(text: string, start: number): string {
  const comma = text.indexOf(',', start);
  return text.slice(start, comma === -1 ? undefined : comma).trim();
}

function skipSpaces(text: string, from: number): number {
  let at = from;
  while (at < text.length && /\s/.test(text[at] ?? '')) at += 1;
  return at;
}

/**
 * TablesToInclude and the ReseedingSchedule lists: `All` (any case) or tables, canonically 'All' | string[].
 * Accepts its own canonical output (a string array) so that the registry can re-parse a forwarded request.
 */
export function tableSelection(options: { allowEmpty: boolean }): FieldRule {
  return {
    doc: {
      type: 'list of tables',
      rule: `${LIST_SYNTAX} (a ']' inside a name is written ']]'; JSON may also give a list of names)${options.allowEmpty ? '; may be empty' : '; at least one table'}`,
    },
    coerce(raw) {
      if (typeof raw === 'string') {
        if (/^\s*all\s*$/i.test(raw)) return 'All';
        const parsed = parseTableList(raw);
        return parsed.ok ? parsed.tables : raw;
      }
      if (Array.isArray(raw) && raw.every((item) => typeof item === 'string')) return raw.map((item) => item.trim());
      return raw;
    },
    problem(value) {
      if (value === 'All') return null;
      if (typeof value === 'string') {
        const parsed = parseTableList(value);
        return parsed.ok ? null : `invalid value ${quoted(value)}: ${parsed.reason}. ${LIST_SYNTAX}`;
      }
      if (Array.isArray(value)) return tableArrayProblem(value, options.allowEmpty);
      return shapeProblem(value) ?? `invalid value ${quoted(value)}. ${LIST_SYNTAX}`;
    },
  };
}

function tableArrayProblem(tables: unknown[], allowEmpty: boolean): string | null {
  if (tables.length === 0) return allowEmpty ? null : `must name at least one table. ${LIST_SYNTAX}`;
  const seen = new Set<string>();
  for (const [index, table] of tables.entries()) {
    if (typeof table !== 'string') return `entry ${index + 1} must be a table name written [schema].[table]`;
    const parsed = parseTableList(table);
    if (!parsed.ok || parsed.tables.length !== 1) {
      return `entry ${index + 1} (${quoted(table)}) ${syntaxReason(table)}`;
    }
    if (seen.has(table)) return `lists ${table} more than once`;
    seen.add(table);
  }
  return null;
}

/**
 * Some of a replication's tables, every table when absent (StartReplicationValidation's TablesToInclude): written
 * and checked as Create's TablesToInclude, with `All` read as leaving the field out, so a request is canonically a
 * list of tables or nothing.
 */
export function tableSubset(): FieldRule {
  const selection = tableSelection({ allowEmpty: false });
  return {
    doc: { type: selection.doc.type, rule: `${selection.doc.rule}; All is the same as leaving it out` },
    coerce(raw) {
      const coerced = selection.coerce(raw);
      return coerced === 'All' ? undefined : coerced;
    },
    problem: (value) => selection.problem(value),
  };
}
