import { CHANGE_TRACKING_SCHEMA } from '@svc/contracts';

/**
 * One row per column of every user table (or of the table `@table` names, as `[schema].[name]`), in
 * ordinal order: its base type (a CLR type by its own name), size, nullability, whether existing rows get
 * a value when it is added (a default, an identity, a computed column), and its position in the primary
 * key, and the collation of a character column (NULL for others). Column sets are left out: they repeat the sparse columns as XML. Estimated rows come from the
 * table's heap or clustered index.
 */
export const DISCOVER_COLUMNS_SQL = `SELECT s.name AS table_schema, t.name AS table_name, c.name AS column_name,
  CASE WHEN ty.is_assembly_type = 1 THEN ty.name ELSE TYPE_NAME(c.system_type_id) END AS type_name,
  CAST(ty.is_assembly_type AS int) AS is_clr_type,
  c.max_length, c.precision, c.scale, CAST(c.is_nullable AS int) AS is_nullable, c.collation_name,
  CAST(CASE WHEN c.default_object_id <> 0 OR c.is_identity = 1 OR c.is_computed = 1 THEN 1 ELSE 0 END AS int) AS has_default,
  pk.key_ordinal,
  (SELECT SUM(p.rows) FROM sys.partitions p WHERE p.object_id = t.object_id AND p.index_id IN (0, 1)) AS estimated_rows
FROM sys.tables t
JOIN sys.schemas s ON s.schema_id = t.schema_id
JOIN sys.columns c ON c.object_id = t.object_id
JOIN sys.types ty ON ty.user_type_id = c.user_type_id
LEFT JOIN (
  SELECT ic.object_id, ic.column_id, ic.key_ordinal
  FROM sys.indexes i
  JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
  WHERE i.is_primary_key = 1
) pk ON pk.object_id = c.object_id AND pk.column_id = c.column_id
WHERE t.is_ms_shipped = 0 AND s.name <> '${CHANGE_TRACKING_SCHEMA}' AND c.is_column_set = 0
  AND (@table IS NULL OR t.object_id = OBJECT_ID(@table))
ORDER BY s.name, t.name, c.column_id`;
