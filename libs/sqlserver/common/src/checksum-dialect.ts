import type { ChecksumColumn, ChecksumDialect } from '@svc/engines';
import { planOfSourceType, stagingPlanOf } from './column-types';

/*
 * Validation's checksums in T-SQL (https://learn.microsoft.com/en-us/sql/t-sql/functions/). Each canonical text equals,
 * value for value, what the PostgreSQL and Redshift warehouse dialects compute for the value the SQL Server reader sent
 * them (column-types.ts, docs/TYPES.md), and every text is nvarchar(max), so that no character is lost before hashing:
 *   - HASHBYTES('MD5', …) hashes the bytes of its input; an nvarchar's are UTF-16, a varchar's those of its collation's
 *     code page. The row text gets a UTF-8 collation (SQL Server 2019 and Azure SQL) before it is converted to varchar,
 *     which is then its UTF-8 bytes: the MD5 PostgreSQL's md5() and Redshift's MD5() compute of the same text.
 *   - LOG10 is the base-10 logarithm (T-SQL's LOG is natural); ROUND rounds half away from zero, PostgreSQL's round and
 *     its timestamp input half to even: ties are rounded to even here, spelled with FLOOR.
 *   - CONVERT(datetime2, datetimeoffset) copies the date and time and drops the offset: SWITCHOFFSET to +00:00 first.
 */

/** A collation whose varchar is UTF-8 (SQL Server 2019+, Azure SQL). */
export const UTF8_COLLATION = 'Latin1_General_100_BIN2_UTF8';
/** Code-point comparison, so that REPLACE finds `\` and `|` only, never a character a collation deems equal to them. */
const BINARY_COLLATION = 'Latin1_General_100_BIN2';

const text = (expression: string) => `CONVERT(nvarchar(max), ${expression})`;

/** Ties to even, as PostgreSQL's rint: FLOOR(x) + 1 above half, FLOOR(x) below, the even neighbour at half. */
function roundedHalfEven(value: string): string {
  const floor = `FLOOR(${value})`;
  return `CASE WHEN ${value} - ${floor} > 0.5 THEN ${floor} + 1 WHEN ${value} - ${floor} < 0.5 THEN ${floor} ELSE ${floor} + ABS(CONVERT(bigint, ${floor}) % 2) END`;
}

/**
 * 12 significant digits as `<mantissa>e<exponent>`, `0` for zero: standard-checksum-sql.ts's floatCanonicalText in
 * T-SQL (NULLIF keeps LOG10 away from zero whatever order SQL Server evaluates the CASE in). SQL Server has no NaN or infinity.
 */
function floatText(value: string): string {
  const double = `CONVERT(float, ${value})`;
  const exponent = `FLOOR(LOG10(ABS(NULLIF(${double}, 0))))`;
  const scaled = `${double} / POWER(CONVERT(float, 10), ${exponent} - 11)`;
  return `CASE WHEN ${double} = 0 THEN N'0' ELSE ${text(`CONVERT(bigint, ${roundedHalfEven(scaled)})`)} + N'e' + ${text(`CONVERT(int, ${exponent})`)} END`;
}

/**
 * A datetime2(7)'s text (`yyyy-mm-dd hh:mi:ss.fffffff`, style 121) to microseconds as PostgreSQL's input does it: the
 * fraction read as a double, times 10^6, rounded half to even (ParseFractionalSecond: rint(frac * 1000000)); the carry
 * goes into the seconds and on by DATEADD. Answers a datetime2(6).
 */
function microsecondsOf(text7: string): string {
  const scaled = `CONVERT(float, '0.' + RIGHT(${text7}, 7)) * CONVERT(float, 1000000)`;
  const carry = `CONVERT(int, ${roundedHalfEven(scaled)}) - CONVERT(int, SUBSTRING(${text7}, 21, 6))`;
  return `DATEADD(MICROSECOND, ${carry}, CONVERT(datetime2(6), LEFT(${text7}, 26), 121))`;
}

/** A datetime2(scale) value's text to the microsecond: `yyyy-mm-dd hh:mi:ss.ffffff`. */
function timestampText(value: string, scale: number): string {
  if (scale <= 6) return text(`CONVERT(varchar(26), CONVERT(datetime2(6), ${value}), 121)`);
  return text(`CONVERT(varchar(26), ${microsecondsOf(`CONVERT(varchar(27), ${value}, 121)`)}, 121)`);
}

/** A time(scale) value's text to the microsecond (`hh:mi:ss.ffffff`); rounding past 23:59:59.999999 wraps to 00:00, as PostgreSQL's date + time does. */
function timeText(value: string, scale: number): string {
  if (scale <= 6) return text(`CONVERT(varchar(15), CONVERT(time(6), ${value}))`);
  const asTimestamp = `'1900-01-01 ' + CONVERT(varchar(16), ${value})`;
  return text(`CONVERT(varchar(15), CONVERT(time(6), ${microsecondsOf(asTimestamp)}))`);
}

const scaleOf = (sourceType: string) => Number(/\((\d+)\)$/.exec(sourceType)?.[1] ?? 7);
const baseTypeOf = (sourceType: string) => (/^[A-Za-z_][\w]*/.exec(sourceType)?.[0] ?? sourceType).toLowerCase();

function canonicalText({ sql, type, declaredType }: ChecksumColumn): string {
  const plan = planOfSourceType('c', declaredType);
  const base = baseTypeOf(plan.sourceType);
  switch (type.kind) {
    case 'boolean':
      return text(`CASE ${sql} WHEN 1 THEN '1' WHEN 0 THEN '0' END`);
    case 'float':
      return floatText(sql);
    case 'date':
      return text(plan.select(sql));
    case 'time':
      return timeText(sql, scaleOf(plan.sourceType));
    case 'timestamp':
      if (base === 'datetime') return `${text(plan.select(sql))} + N'000'`;
      if (base === 'smalldatetime') return `${text(plan.select(sql))} + N'.000000'`;
      if (base === 'datetimeoffset') {
        const scale = scaleOf(plan.sourceType);
        return timestampText(`CONVERT(datetime2(${scale}), SWITCHOFFSET(${sql}, '+00:00'))`, scale);
      }
      return timestampText(sql, scaleOf(plan.sourceType));
    case 'binary':
      // Redshift loads an empty binary value as NULL (docs/TYPES.md): empty and NULL compare alike on every engine.
      return text(`NULLIF(LOWER(CONVERT(varchar(max), CONVERT(varbinary(max), ${sql}), 2)), '')`);
    case 'text':
      // char(n)'s padding is no data (PostgreSQL's char(n)::text drops it, Redshift's dialect RTRIMs it).
      return `${text(type.fixed ? `RTRIM(${sql})` : plan.select(sql))} COLLATE ${BINARY_COLLATION}`;
    case 'json':
      return `${text(plan.select(sql))} COLLATE ${BINARY_COLLATION}`;
    case 'integer':
    case 'decimal':
    case 'uuid':
      return text(plan.select(sql));
    case 'interval':
    case 'array':
    case 'native':
      throw new Error(`a SQL Server column of type ${declaredType} does not read as ${type.kind}`);
  }
}

/**
 * SQL Server's spelling of validation's checksums (source side). Parameters are bound by name as @p1, @p2… (mssql's
 * request.input), each an nvarchar key text that keyFromText converts as staging converts the interchange text.
 */
export const TSQL_CHECKSUM_DIALECT: ChecksumDialect = {
  canonicalText,
  mayHoldSeparators: (type) => type.kind === 'text' || type.kind === 'json' || type.kind === 'array' || type.kind === 'native',
  /** The interchange text the reader sends (column-types.ts select): what every warehouse casts back to its type. */
  keyText: ({ sql, declaredType }) => planOfSourceType('c', declaredType).select(sql),
  keyFromText: (parameter, { declaredType }) => stagingPlanOf('c', declaredType).fromText(parameter),
  concat: (parts) => (parts.length === 1 ? (parts[0] ?? "N''") : `(${parts.join(' + ')})`),
  character: (code) => `NCHAR(${code})`,
  md5: (value) => `LOWER(CONVERT(varchar(32), HASHBYTES('MD5', CONVERT(varchar(max), ${value} COLLATE ${UTF8_COLLATION})), 2))`,
  // Zeros before the digits make 16 hex digits, 8 bytes, the top bits 0: a non-negative bigint (binary converts big-endian).
  hexPrefixValue: (hex, digits) => {
    if (!Number.isInteger(digits) || digits < 1 || digits > 15) throw new RangeError(`a hex prefix of ${digits} digits is no non-negative bigint`);
    return `CONVERT(bigint, CONVERT(binary(8), '${'0'.repeat(16 - digits)}' + SUBSTRING(${hex}, 1, ${digits}), 2))`;
  },
  parameter: (index) => `@p${index}`,
  // SUM of a bigint is a bigint (it would overflow), and tedious reads decimal as a JavaScript number: the sum is taken
  // in DECIMAL(38,0) and leaves as its exact text.
  digestSum: (digest) => `CONVERT(varchar(40), SUM(CONVERT(decimal(38,0), ${digest})))`,
  distinctAtMost: (limit) => ({ select: `SELECT DISTINCT TOP (${limit})`, after: '' }),
};

/** SERVERPROPERTY('EngineEdition') of Azure SQL Database and Azure SQL Managed Instance, which have UTF-8 collations whatever ProductVersion says. */
const AZURE_EDITIONS_WITH_UTF8: ReadonlySet<number> = new Set([5, 8]);
/** SQL Server 2019's major version: UTF-8 collations came with it. */
const FIRST_MAJOR_VERSION_WITH_UTF8 = 15;

/**
 * Why a server cannot compute validation's checksums, null when it can: they hash UTF-8 text, which takes a UTF-8
 * collation (SQL Server 2019 and later, Azure SQL). `SERVER_MAJOR_VERSION_SQL` reads both numbers.
 */
export function utf8HashingProblem(majorVersion: number, engineEdition: number): string | null {
  if (AZURE_EDITIONS_WITH_UTF8.has(engineEdition) || majorVersion >= FIRST_MAJOR_VERSION_WITH_UTF8) return null;
  return `validation needs SQL Server 2019 or later, or Azure SQL: it hashes each row as UTF-8 text, which takes a UTF-8 collation, and this source server is version ${majorVersion} (SQL Server 2017 is 14)`;
}
