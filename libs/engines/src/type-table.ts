import { Portable, describePortableType, type PortableType } from '@svc/contracts';

/** One of an engine's own types as a source reads it: the portable type it travels as and what changes on the way. */
export interface SourceTypeMapping {
  /** The type as the engine spells it (`datetime2(7)`, `numeric(12,2)`). */
  engineType: string;
  portableType: PortableType;
  /** What a value loses or how its text changes; null when it travels unchanged. */
  changes: string | null;
}

/** How a warehouse declares a column of a portable type, and what a value loses there. */
export interface DeclaredType {
  /** The type as the engine's DDL writes it. */
  type: string;
  /** What a value loses; null when nothing. */
  lost: string | null;
}

/**
 * An engine's type table, the only source of docs/TYPES.md: a source lists its own types as it reads them, a
 * warehouse says how it declares each portable type. Both are the functions the pipeline runs, not prose.
 */
export interface EngineTypes {
  /** Source engines: representative types of the engine, each through the mapping its catalog reads use. */
  reads?: () => readonly SourceTypeMapping[];
  /** Warehouse engines: the column type its tables get for a portable type. */
  declares?: (type: PortableType) => DeclaredType;
}

/** The portable types a warehouse's table shows: every kind, with the parameters whose handling differs. */
export const PORTABLE_TYPE_SAMPLES: readonly PortableType[] = [
  Portable.smallint(),
  Portable.integer(),
  Portable.bigint(),
  Portable.decimal(38, 10),
  Portable.decimal(5, 7),
  Portable.decimal(5, -2),
  Portable.decimal(40, 2),
  Portable.decimal(),
  Portable.float(4),
  Portable.float(8),
  Portable.text(),
  Portable.varchar(40),
  Portable.varchar(20_000),
  { kind: 'text', length: 100, unit: 'bytes', fixed: false },
  Portable.char(2),
  Portable.binary(),
  Portable.binary(16, true),
  Portable.boolean(),
  Portable.date(),
  Portable.time(6),
  Portable.time(7),
  Portable.time(6, true),
  Portable.timestamp(3),
  Portable.timestamp(7),
  Portable.timestamp(6, true),
  Portable.interval(),
  Portable.uuid(),
  Portable.json(),
  Portable.json(true),
  Portable.array(Portable.integer()),
  Portable.native('postgres', 'inet'),
  Portable.native('sqlserver', 'sql_variant'),
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The markdown table of what a source engine reads its types as. */
export function sourceTypeTable(mappings: readonly SourceTypeMapping[]): string {
  const rows = mappings.map((mapping) => `| \`${cell(mapping.engineType)}\` | ${cell(describePortableType(mapping.portableType))} | ${cell(mapping.changes ?? 'unchanged')} |`);
  return ['| Type | Travels as | What changes |', '| --- | --- | --- |', ...rows].join('\n');
}

/** The markdown table of how a warehouse engine declares each sample portable type. */
export function warehouseTypeTable(declares: (type: PortableType) => DeclaredType): string {
  const rows = PORTABLE_TYPE_SAMPLES.map((type) => {
    const declared = declares(type);
    return `| ${cell(describePortableType(type))} | \`${cell(declared.type)}\` | ${cell(declared.lost ?? 'nothing')} |`;
  });
  return ['| Portable type | Declared as | What is lost |', '| --- | --- | --- |', ...rows].join('\n');
}
