import { Portable, tableKey, type PortableType, type TableRef } from '@svc/contracts';
import { EngineError } from '@svc/engines';

/** A column as SQL Server's catalog describes it (sys.columns with its base type). */
export interface CatalogColumn {
  name: string;
  /** The base system type (`nvarchar`, `decimal`, `timestamp` for rowversion…), or the CLR type's name (`hierarchyid`, `geometry`, a user CLR type). */
  typeName: string;
  /** A CLR type (hierarchyid, geometry, geography or a user-defined assembly type). */
  isClrType: boolean;
  /** Bytes, -1 for (max): nvarchar(n) has 2n. */
  maxLength: number;
  precision: number;
  scale: number;
}

/** How one column travels: its types on each side and the T-SQL that reads it as the pipeline's CSV text. */
export interface ColumnPlan {
  /** The column's type as SQL Server writes it, for a SQL Server staging table (`nvarchar(40)`, `decimal(38,10)`). */
  sourceType: string;
  /** What its values are, in no engine's spelling: the type warehouses map to a type of theirs. */
  portableType: PortableType;
  /**
   * How a read selects it, given the qualified column: text in the row interchange format of its portable type
   * (`interchangeTextProblem`), so that no value passes through a JavaScript number or Date, except float and
   * real, which are IEEE doubles in JavaScript too and are rendered there (`rendersInJs`).
   */
  select(column: string): string;
  /** float and real arrive as JavaScript numbers (exact) and are written as their shortest round-trip text. */
  rendersInJs?: true;
  /** Why the value changes on the way, for the README's type table; absent when it travels unchanged. */
  conversion?: string;
}

const characters = (column: CatalogColumn, bytesPerCharacter: number) => (column.maxLength === -1 ? 'max' : String(column.maxLength / bytesPerCharacter));
/**
 * The portable text of a sized character column: n bounds the characters of char(n) and varchar(n) (n bytes, at
 * most n characters) and of nchar(n) and nvarchar(n) (n UTF-16 code units, at most n characters); (max) is unbounded.
 */
const portableText = (column: CatalogColumn, bytesPerCharacter: number, fixed: boolean): PortableType => {
  if (column.maxLength === -1) return Portable.text();
  const length = column.maxLength / bytesPerCharacter;
  return fixed ? Portable.char(length) : Portable.varchar(length);
};
/** The portable binary of a sized binary column; varbinary(max) is unbounded. */
const portableBinary = (column: CatalogColumn, fixed: boolean): PortableType => Portable.binary(column.maxLength === -1 ? null : column.maxLength, fixed);

const asText = (length: string) => (column: string) => `CONVERT(varchar(${length}), ${column})`;
const asIs = (column: string) => column;
const hex = (column: string) => `'\\x' + CONVERT(varchar(max), CONVERT(varbinary(max), ${column}), 2)`;

/**
 * The base types of a sql_variant whose default CONVERT style loses part of the value, each converted to
 * itself and then to text with the style that keeps it (CAST and CONVERT, "float and real styles": 3 "Always
 * 17 digits. Use for lossless conversion"; "money and smallmoney styles": 2, four decimals where the default
 * has two; date and time styles 121 and 120, where datetime's default is "mon dd yyyy hh:miAM"; binary style
 * 1, 0x and hex digits, where the default turns each byte into a character). Other base types (integers,
 * decimal, bit, character types, uniqueidentifier, time) keep every digit in their default text. The text is
 * nvarchar(max): a base value of 8000 bytes (varchar(8000), or binary(8000) as 16002 hex characters) is longer
 * than nvarchar(4000).
 */
const VARIANT_TEXT: readonly { baseType: string; as: string; style: number }[] = [
  { baseType: 'float', as: 'float', style: 3 },
  { baseType: 'real', as: 'real', style: 3 },
  { baseType: 'money', as: 'money', style: 2 },
  { baseType: 'smallmoney', as: 'smallmoney', style: 2 },
  { baseType: 'datetime', as: 'datetime', style: 121 },
  { baseType: 'smalldatetime', as: 'smalldatetime', style: 120 },
  { baseType: 'datetime2', as: 'datetime2(7)', style: 121 },
  { baseType: 'datetimeoffset', as: 'datetimeoffset(7)', style: 121 },
  { baseType: 'date', as: 'date', style: 23 },
  { baseType: 'binary', as: 'varbinary(8000)', style: 1 },
  { baseType: 'varbinary', as: 'varbinary(8000)', style: 1 },
];

const variantText = (column: string) =>
  `CASE CONVERT(sysname, SQL_VARIANT_PROPERTY(${column}, 'BaseType'))${VARIANT_TEXT.map(
    ({ baseType, as, style }) => `\n    WHEN '${baseType}' THEN CONVERT(nvarchar(max), CONVERT(${as}, ${column}), ${style})`,
  ).join('')}\n    ELSE CONVERT(nvarchar(max), ${column}) END`;

/** A type name as a table definition's sourceType carries it (see planOfSourceType). */
const CLR_TYPE_NAME = /^[A-Za-z_][\w.]*$/;

/**
 * The plan of every SQL Server type a table can hold. Values are rendered by SQL Server itself in a
 * culture-independent style (CONVERT with an explicit style), never by the driver.
 */
export function columnPlan(column: CatalogColumn): ColumnPlan {
  const type = column.typeName.toLowerCase();
  const { precision, scale } = column;
  switch (type) {
    case 'bigint':
      return { sourceType: 'bigint', portableType: Portable.bigint(), select: asText('20') };
    case 'int':
      return { sourceType: 'int', portableType: Portable.integer(), select: asText('11') };
    case 'smallint':
      return { sourceType: 'smallint', portableType: Portable.smallint(), select: asText('6') };
    case 'tinyint':
      return { sourceType: 'tinyint', portableType: Portable.smallint(), select: asText('3') };
    case 'bit':
      return { sourceType: 'bit', portableType: Portable.boolean(), select: (c) => `CASE ${c} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END` };
    case 'decimal':
    case 'numeric':
      return { sourceType: `${type}(${precision},${scale})`, portableType: Portable.decimal(precision, scale), select: asText('41') };
    case 'money':
      return { sourceType: 'money', portableType: Portable.decimal(19, 4), select: (c) => `CONVERT(varchar(30), ${c}, 2)` };
    case 'smallmoney':
      return { sourceType: 'smallmoney', portableType: Portable.decimal(10, 4), select: (c) => `CONVERT(varchar(30), ${c}, 2)` };
    case 'float':
      return { sourceType: 'float', portableType: Portable.float(8), select: asIs, rendersInJs: true };
    case 'real':
      return { sourceType: 'real', portableType: Portable.float(4), select: asIs, rendersInJs: true, conversion: 'written as the shortest text of its exact double value (0.1 reads 0.10000000149011612)' };
    case 'date':
      return { sourceType: 'date', portableType: Portable.date(), select: (c) => `CONVERT(varchar(10), ${c}, 23)` };
    case 'time':
      return {
        sourceType: `time(${scale})`,
        portableType: Portable.time(scale),
        // The default style of time is hh:mi:ss.nnnnnnn (style 114 would put a colon before the fraction).
        select: (c) => `CONVERT(varchar(16), ${c})`,
      };
    case 'datetime2':
      return {
        sourceType: `datetime2(${scale})`,
        portableType: Portable.timestamp(scale),
        select: (c) => `CONVERT(varchar(27), ${c}, 121)`,
      };
    case 'datetime':
      return { sourceType: 'datetime', portableType: Portable.timestamp(3), select: (c) => `CONVERT(varchar(23), ${c}, 121)` };
    case 'smalldatetime':
      return { sourceType: 'smalldatetime', portableType: Portable.timestamp(0), select: (c) => `CONVERT(varchar(19), ${c}, 120)` };
    case 'datetimeoffset':
      return {
        sourceType: `datetimeoffset(${scale})`,
        portableType: Portable.timestamp(scale, true),
        // Style 121 writes the value with its own offset (yyyy-mm-dd hh:mi:ss.nnnnnnn +hh:mm): nothing changes here.
        select: (c) => `CONVERT(varchar(34), ${c}, 121)`,
      };
    case 'char':
      return { sourceType: `char(${characters(column, 1)})`, portableType: portableText(column, 1, true), select: asIs };
    case 'nchar':
      return { sourceType: `nchar(${characters(column, 2)})`, portableType: portableText(column, 2, true), select: asIs };
    case 'varchar':
      return column.maxLength === -1
        ? { sourceType: 'varchar(max)', portableType: Portable.text(), select: asIs }
        : { sourceType: `varchar(${characters(column, 1)})`, portableType: portableText(column, 1, false), select: asIs };
    case 'nvarchar':
      return column.maxLength === -1
        ? { sourceType: 'nvarchar(max)', portableType: Portable.text(), select: asIs }
        : { sourceType: `nvarchar(${characters(column, 2)})`, portableType: portableText(column, 2, false), select: asIs };
    case 'text':
    case 'ntext':
      return { sourceType: type, portableType: Portable.text(), select: (c) => `CONVERT(nvarchar(max), ${c})` };
    case 'xml':
      return { sourceType: 'xml', portableType: Portable.text(), select: (c) => `CONVERT(nvarchar(max), ${c})`, conversion: 'its text (SQL Server normalises XML on storage)' };
    case 'binary':
      return { sourceType: `binary(${characters(column, 1)})`, portableType: portableBinary(column, true), select: hex };
    case 'varbinary':
      return { sourceType: column.maxLength === -1 ? 'varbinary(max)' : `varbinary(${characters(column, 1)})`, portableType: portableBinary(column, false), select: hex };
    case 'image':
      return { sourceType: 'image', portableType: Portable.binary(), select: hex };
    case 'timestamp':
    case 'rowversion':
      return { sourceType: 'rowversion', portableType: Portable.binary(8, true), select: hex, conversion: 'its 8 bytes; staging keeps them as binary(8)' };
    case 'uniqueidentifier':
      return { sourceType: 'uniqueidentifier', portableType: Portable.uuid(), select: (c) => `LOWER(CONVERT(char(36), ${c}))` };
    case 'sql_variant':
      return {
        sourceType: 'sql_variant',
        portableType: Portable.text(),
        select: variantText,
        conversion: 'the text of its value, every digit kept (float in 17 digits, money with 4 decimals, binary as 0x hex); the base type it had is not kept',
      };
    case 'geometry':
    case 'geography':
      return {
        sourceType: type,
        portableType: Portable.text(),
        // Extended WKT (PostGIS reads it): the spatial reference travels with the shape. AsTextZM, unlike
        // STAsText, keeps the Z (elevation) and M (measure) values of each point.
        select: (c) => `'SRID=' + CONVERT(varchar(11), ${c}.STSrid) + ';' + ${c}.AsTextZM()`,
        conversion: 'extended well-known text with its SRID and any Z and M values (SRID=4326;POINT (…))',
      };
    case 'hierarchyid':
      return { sourceType: 'hierarchyid', portableType: Portable.text(), select: (c) => `${c}.ToString()`, conversion: 'its path text, e.g. /1/3/' };
    // SQL Server 2025 and Azure SQL: json converts explicitly to nvarchar; vector "to and from char, nchar,
    // varchar, nvarchar and json", as a JSON array of its float elements (the json and vector data type pages).
    case 'json':
      return { sourceType: 'json', portableType: Portable.json(false), select: (c) => `CONVERT(nvarchar(max), ${c})`, conversion: 'its JSON text' };
    case 'vector':
      return {
        sourceType: 'vector',
        portableType: Portable.json(false),
        select: (c) => `CONVERT(nvarchar(max), ${c})`,
        conversion: 'its JSON array text, one number per dimension; staging keeps it as nvarchar(max)',
      };
    default:
      // A user CLR type's name comes from the source's catalog: it becomes sourceType only when planOfSourceType reads it back as a name.
      if (column.isClrType && CLR_TYPE_NAME.test(column.typeName)) {
        return { sourceType: column.typeName, portableType: Portable.text(), select: (c) => `${c}.ToString()`, conversion: 'a CLR user-defined type travels as its ToString() text' };
      }
      throw new UnsupportedColumnTypeError(column);
  }
}

/**
 * A system type the source does not know (SQL Server added it after this version of the service): the table
 * that has such a column stops with this reason, naming table, column and type; the other tables replicate.
 */
export class UnsupportedColumnTypeError extends EngineError {
  readonly kind = 'statement-failed';
  override readonly serviceWorded = true;

  constructor(
    readonly column: Pick<CatalogColumn, 'name' | 'typeName'>,
    table?: TableRef,
  ) {
    super(
      `${table === undefined ? '' : `${tableKey(table)}: `}column ${column.name} has type ${column.typeName}, which the SQL Server source cannot read yet`,
    );
    this.name = 'UnsupportedColumnTypeError';
  }
}

const SYSTEM_TYPES: ReadonlySet<string> = new Set([
  'bigint', 'int', 'smallint', 'tinyint', 'bit', 'decimal', 'numeric', 'money', 'smallmoney', 'float', 'real', 'date', 'time', 'datetime2',
  'datetime', 'smalldatetime', 'datetimeoffset', 'char', 'nchar', 'varchar', 'nvarchar', 'text', 'ntext', 'xml', 'binary', 'varbinary',
  'image', 'timestamp', 'rowversion', 'uniqueidentifier', 'sql_variant', 'geometry', 'geography', 'hierarchyid', 'json', 'vector',
]);
const UNICODE_TYPES: ReadonlySet<string> = new Set(['nchar', 'nvarchar']);

/**
 * The plan of a column from the source type a table definition carries (`ColumnPlan.sourceType`): the read
 * that streams a table is planned from its definition, so that it reads exactly the columns the definition names.
 */
export function planOfSourceType(name: string, sourceType: string): ColumnPlan {
  const match = /^([A-Za-z_][\w.]*)(?:\((max|\d+)(?:,(\d+))?\))?$/.exec(sourceType.trim());
  if (!match) throw new Error(`column ${name}: '${sourceType}' is not a SQL Server type`);
  const typeName = (match[1] ?? '').toLowerCase();
  const first = match[2];
  const second = match[3];
  const isClrType = !SYSTEM_TYPES.has(typeName);
  const bytesPerCharacter = UNICODE_TYPES.has(typeName) ? 2 : 1;
  const sized = first !== undefined && ['char', 'nchar', 'varchar', 'nvarchar', 'binary', 'varbinary'].includes(typeName);
  const scaled = ['time', 'datetime2', 'datetimeoffset'].includes(typeName);
  return columnPlan({
    name,
    typeName: isClrType ? (match[1] ?? '') : typeName,
    isClrType,
    maxLength: sized ? (first === 'max' ? -1 : Number(first) * bytesPerCharacter) : 0,
    precision: !sized && !scaled && first !== undefined ? Number(first) : 0,
    scale: scaled ? Number(first ?? 7) : Number(second ?? 0),
  });
}

/** How a SQL Server staging table holds a column, and the T-SQL that turns the pipeline's text back into it. */
export interface StagingColumnPlan {
  /** The staging column's type: the source's, except rowversion (binary(8): a staging table writes it) and a user CLR type (its text: the assembly is not on the staging server). */
  stagingType: string;
  /** T-SQL converting the text `text` (nvarchar(max), as column-types renders it) to `stagingType`. */
  fromText(text: string): string;
  /**
   * The most characters of text `fromText` keeps whole, when it keeps fewer than the text may have: a longer value
   * would be cut silently ("When you convert character … expressions … to an expression of a different data type …
   * the conversion operation could truncate the output data", CAST and CONVERT), so staging refuses the batch instead.
   */
  maxTextLength?: number;
}

/** The error number staging raises for a value longer than its staging column keeps (a table-stopping data error). */
export const STAGING_VALUE_TOO_LONG = 51020;

const convertTo = (type: string, style?: number) => (text: string) => `CONVERT(${type}, ${text}${style === undefined ? '' : `, ${style}`})`;
const fromHex = (type: string) => (text: string) => `CONVERT(${type}, SUBSTRING(${text}, 3, LEN(${text})), 2)`;
const spatial = (type: string) => (text: string) =>
  `${type}::STGeomFromText(SUBSTRING(${text}, CHARINDEX(';', ${text}) + 1, LEN(${text})), CONVERT(int, SUBSTRING(${text}, 6, CHARINDEX(';', ${text}) - 6)))`;

/** The staging side of a column with this source type (see planOfSourceType). */
export function stagingPlanOf(name: string, sourceType: string): StagingColumnPlan {
  const { sourceType: type } = planOfSourceType(name, sourceType);
  const base = (/^[a-z_0-9]+/i.exec(type)?.[0] ?? type).toLowerCase();
  switch (base) {
    case 'bit':
      return { stagingType: 'bit', fromText: (text) => `CASE ${text} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END` };
    case 'date':
      return { stagingType: type, fromText: convertTo(type, 23) };
    case 'datetime2':
    case 'datetime':
    case 'datetimeoffset':
      return { stagingType: type, fromText: convertTo(type, 121) };
    case 'smalldatetime':
      return { stagingType: type, fromText: convertTo(type, 120) };
    case 'binary':
    case 'varbinary':
      return { stagingType: type, fromText: fromHex(type) };
    case 'image':
      return { stagingType: 'varbinary(max)', fromText: fromHex('varbinary(max)') };
    case 'rowversion':
      return { stagingType: 'binary(8)', fromText: fromHex('binary(8)') };
    case 'geometry':
    case 'geography':
      return { stagingType: base, fromText: spatial(base) };
    case 'hierarchyid':
      return { stagingType: 'hierarchyid', fromText: (text) => `hierarchyid::Parse(${text})` };
    case 'json':
    case 'vector':
      // Their text: a staging server older than SQL Server 2025 has neither type.
      return { stagingType: 'nvarchar(max)', fromText: (text) => text };
    case 'char':
    case 'nchar':
    case 'varchar':
    case 'nvarchar':
    case 'text':
    case 'ntext':
      return { stagingType: type, fromText: (text) => text };
    case 'sql_variant':
      // A sql_variant cannot hold an nvarchar(max): the value's text (at most 4000 characters) goes in as nvarchar(4000).
      return { stagingType: 'sql_variant', fromText: convertTo('nvarchar(4000)'), maxTextLength: 4000 };
    case 'bigint':
    case 'int':
    case 'smallint':
    case 'tinyint':
    case 'decimal':
    case 'numeric':
    case 'money':
    case 'smallmoney':
    case 'float':
    case 'real':
    case 'time':
    case 'xml':
    case 'uniqueidentifier':
      return { stagingType: type, fromText: convertTo(type) };
    default:
      return { stagingType: 'nvarchar(max)', fromText: (text) => text };
  }
}
