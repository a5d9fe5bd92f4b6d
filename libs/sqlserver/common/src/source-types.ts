import type { SourceTypeMapping } from '@svc/engines';
import { columnPlan, type CatalogColumn } from './column-types';

/** A column of one SQL Server type as the catalog describes it, and the name the type table gives it when its own is not telling. */
export interface SqlServerTypeSample {
  column: CatalogColumn;
  /** Defaults to the plan's source type (`nvarchar(40)`). */
  engineType?: string;
}

const sample = (typeName: string, size: Partial<Omit<CatalogColumn, 'name' | 'typeName'>> = {}, engineType?: string): SqlServerTypeSample => ({
  column: { name: 'c', typeName, isClrType: false, maxLength: 0, precision: 0, scale: 0, ...size },
  ...(engineType !== undefined && { engineType }),
});

/** One column of each case of columnPlan, sized as sys.columns reports it (max_length in bytes, -1 for (max)). */
export const SQLSERVER_TYPE_SAMPLES: readonly SqlServerTypeSample[] = [
  sample('int'),
  sample('bigint'),
  sample('smallint'),
  sample('tinyint'),
  sample('bit'),
  sample('decimal', { precision: 38, scale: 10 }),
  sample('money'),
  sample('smallmoney'),
  sample('float'),
  sample('real'),
  sample('date'),
  sample('time', { scale: 7 }),
  sample('datetime2', { scale: 7 }),
  sample('datetime2', { scale: 3 }),
  sample('datetime', { scale: 3 }),
  sample('smalldatetime'),
  sample('datetimeoffset', { scale: 7 }),
  sample('char', { maxLength: 10 }),
  sample('nchar', { maxLength: 20 }),
  sample('varchar', { maxLength: 40 }),
  sample('nvarchar', { maxLength: 80 }),
  sample('varchar', { maxLength: -1 }),
  sample('nvarchar', { maxLength: -1 }),
  sample('text', { maxLength: 16 }),
  sample('ntext', { maxLength: 16 }),
  sample('xml', { maxLength: -1 }),
  sample('binary', { maxLength: 16 }),
  sample('varbinary', { maxLength: 100 }),
  sample('varbinary', { maxLength: -1 }),
  sample('image', { maxLength: 16 }),
  // sys.types names rowversion `timestamp`.
  sample('timestamp', { maxLength: 8 }),
  sample('uniqueidentifier', { maxLength: 16 }),
  sample('sql_variant', { maxLength: 8016 }),
  sample('geometry', { isClrType: true, maxLength: -1 }),
  sample('geography', { isClrType: true, maxLength: -1 }),
  sample('hierarchyid', { isClrType: true, maxLength: 892 }),
  sample('json', { maxLength: -1 }),
  sample('vector', { maxLength: 20 }),
  sample('Money2', { isClrType: true, maxLength: 20 }, 'a CLR user-defined type'),
];

/** What the SQL Server source reads each of its types as: the samples through columnPlan, the mapping its catalog reads use. */
export function sqlServerSourceTypes(): SourceTypeMapping[] {
  return SQLSERVER_TYPE_SAMPLES.map(({ column, engineType }) => {
    const plan = columnPlan(column);
    return { engineType: engineType ?? plan.sourceType, portableType: plan.portableType, changes: plan.conversion ?? null };
  });
}
