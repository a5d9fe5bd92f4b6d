import { quoted } from './bracketed-names';
import { CHANGE_TRACKING_MODEL_SCHEMA as MODEL } from './change-tracking-model';
import { postgresTypeOf } from './tsql-runtime';

/**
 * The DDL the SQL Server source and staging generate (staging-sql.ts, tracking-sql.ts), recognised by its form and
 * written in PostgreSQL's spelling over the model's types (postgresTypeOf). `expression` translates an embedded
 * expression (a guard's condition) as the statement translator does. Null for a statement of no form known here.
 */
export function translatedDdl(statement: string, expression: (fragment: string) => string): string | null {
  for (const form of FORMS) {
    const match = form.pattern.exec(statement);
    if (match) return form.translate(match, expression);
  }
  return null;
}

const NAME = String.raw`\[(?:[^\]]|\]\])*\]`;
const TABLE = String.raw`(${NAME})\.(${NAME})`;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const tableOf = (schema: string, name: string) => `${quoted(schema)}.${quoted(name)}`;
const names = (list: string) => (list.match(new RegExp(NAME, 'g')) ?? []).map(quoted).join(', ');

function typeOf(sqlServerType: string): string {
  const mapped = postgresTypeOf(sqlServerType);
  if (mapped === null) throw new Error(`the PostgreSQL model of SQL Server has no type ${sqlServerType}`);
  return mapped;
}

const COLUMN = new RegExp(String.raw`^\s*(${NAME})\s+([A-Za-z0-9_]+(?:\(\s*(?:max|\d+)(?:\s*,\s*\d+)?\s*\))?)(?:\s+COLLATE\s+\w+)?\s+(NOT NULL|NULL)\s*$`, 'i');

/** One column line of CREATE TABLE or ALTER TABLE … ADD: `[name] type [COLLATE c] NULL|NOT NULL`. */
function columnLine(line: string): string {
  const match = COLUMN.exec(line);
  if (!match) throw new Error(`the PostgreSQL model of SQL Server does not read the column definition ${line.trim()}`);
  const [, name = '', type = '', nullability = ''] = match;
  return `${quoted(name)} ${typeOf(type)} ${nullability.toUpperCase()}`;
}

/** The lines of a column list, split where the generator joins them (`,\n`). */
const lines = (body: string) => body.split(/,\n/).filter((line) => line.trim() !== '');

interface Form {
  pattern: RegExp;
  translate(match: RegExpExecArray, expression: (fragment: string) => string): string;
}

const FORMS: readonly Form[] = [
  {
    // IF SCHEMA_ID(N'x') IS NULL EXEC(N'CREATE SCHEMA [x]')
    pattern: new RegExp(String.raw`^IF SCHEMA_ID\(N'(?:[^']|'')*'\) IS NULL EXEC\(N'CREATE SCHEMA ((?:[^']|'')*)'\)$`),
    translate: ([, name = '']) => `CREATE SCHEMA IF NOT EXISTS ${quoted(name.replace(/''/g, "'"))}`,
  },
  {
    pattern: new RegExp(String.raw`^CREATE TABLE ${TABLE} \(\n([\s\S]*)\n\)$`),
    translate: ([, schema = '', name = '', body = '']) => {
      const parts = lines(body).map((line) => {
        const key = /^\s*PRIMARY KEY \((.*)\)\s*$/.exec(line);
        return key ? `PRIMARY KEY (${names(key[1] ?? '')})` : columnLine(line);
      });
      return `CREATE TABLE ${tableOf(schema, name)} (${parts.join(', ')})`;
    },
  },
  {
    pattern: new RegExp(String.raw`^ALTER TABLE ${TABLE} ADD\n([\s\S]*)$`),
    translate: ([, schema = '', name = '', body = '']) => `ALTER TABLE ${tableOf(schema, name)} ${lines(body).map((line) => `ADD COLUMN ${columnLine(line)}`).join(', ')}`,
  },
  {
    pattern: new RegExp(String.raw`^ALTER TABLE ${TABLE} ALTER COLUMN (${NAME}) ([A-Za-z0-9_]+(?:\([^)]*\))?)(?: COLLATE \w+)? (NOT NULL|NULL)$`),
    translate: ([, schema = '', name = '', column = '', type = '', nullability = '']) => {
      const target = typeOf(type);
      const columnName = quoted(column);
      return `ALTER TABLE ${tableOf(schema, name)} ALTER COLUMN ${columnName} TYPE ${target} USING ${columnName}::text::${target}, ALTER COLUMN ${columnName} ${nullability === 'NULL' ? 'DROP' : 'SET'} NOT NULL`;
    },
  },
  {
    pattern: new RegExp(String.raw`^ALTER TABLE ${TABLE} DROP CONSTRAINT (${NAME})$`),
    translate: ([, schema = '', name = '', constraint = '']) => `ALTER TABLE ${tableOf(schema, name)} DROP CONSTRAINT ${quoted(constraint)}`,
  },
  {
    pattern: new RegExp(String.raw`^ALTER TABLE ${TABLE} ADD CONSTRAINT (${NAME}) PRIMARY KEY \((.*)\)$`),
    translate: ([, schema = '', name = '', constraint = '', keys = '']) => `ALTER TABLE ${tableOf(schema, name)} ADD CONSTRAINT ${quoted(constraint)} PRIMARY KEY (${names(keys)})`,
  },
  {
    pattern: new RegExp(String.raw`^TRUNCATE TABLE ${TABLE}$`),
    translate: ([, schema = '', name = '']) => `TRUNCATE TABLE ${tableOf(schema, name)}`,
  },
  {
    // The batch's rows: a temporary table of the session, created anew for every batch.
    pattern: /^IF OBJECT_ID\(N'tempdb\.\.(#\w+)'\) IS NOT NULL DROP TABLE #\w+;\nCREATE TABLE #\w+ \(\n([\s\S]*)\n\)$/,
    translate: ([, table = '', body = '']) =>
      `DROP TABLE IF EXISTS pg_temp."${table}"; CREATE TEMPORARY TABLE "${table}" (${lines(body)
        .map((line) => columnLine(line.replace(/ COLLATE DATABASE_DEFAULT/, '')))
        .join(', ')})`,
  },
  {
    // valueLengthGuardSql: one IF EXISTS (…) THROW n, N'…', 1; per limited column.
    pattern: /^(?:IF EXISTS \(.*\) THROW \d+, N'(?:[^']|'')*', 1;\n?)+$/,
    translate: ([statement = ''], expression) =>
      statement
        .split('\n')
        .map((line) => {
          const guard = /^IF EXISTS \((.*)\) THROW (\d+), N'((?:[^']|'')*)', 1;$/.exec(line);
          if (!guard) throw new Error(`the PostgreSQL model of SQL Server does not read the guard ${line}`);
          return `SELECT tsql.throw_if(EXISTS (${expression(guard[1] ?? '')}), ${guard[2] ?? '0'}, '${guard[3] ?? ''}')`;
        })
        .join('; '),
  },
  {
    // enableDatabaseTrackingSql: Change Tracking on, its retention the longer of the one it has and the one asked for.
    pattern: /^DECLARE @requested_hours int = (\d+);\n[\s\S]*ALTER DATABASE CURRENT SET CHANGE_TRACKING = ON[\s\S]*AS previous_hours$/,
    translate: ([, hours = '0']) => `SELECT retention_hours, previous_hours FROM ${MODEL}.enable_database_tracking(${Number(hours)})`,
  },
  {
    pattern: new RegExp(String.raw`^IF NOT EXISTS \(SELECT 1 FROM sys\.change_tracking_tables WHERE object_id = OBJECT_ID\(@table\)\)\n  ALTER TABLE ${TABLE} ENABLE CHANGE_TRACKING WITH \(TRACK_COLUMNS_UPDATED = OFF\)$`),
    translate: ([, schema = '', name = '']) => `SELECT ${MODEL}.ensure_table_tracking(${literal(tableOf(schema, name))}::regclass)`,
  },
  {
    pattern: new RegExp(String.raw`^IF EXISTS \(SELECT 1 FROM sys\.change_tracking_tables WHERE object_id = OBJECT_ID\(@table\)\)\n  ALTER TABLE ${TABLE} DISABLE CHANGE_TRACKING$`),
    translate: ([, schema = '', name = '']) => `SELECT ${MODEL}.disable_table_tracking(to_regclass(${literal(tableOf(schema, name))}))`,
  },
];
