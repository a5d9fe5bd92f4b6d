import type { TableRef } from '@svc/contracts';
import { qualifiedName as qualifiedSchemaName } from '@svc/postgres/common';

export { UnsupportedPostgresTypeError, columnList, quoteIdent } from '@svc/postgres/common';
/**
 * Type text is spliced into DDL: a staging column's type is its portable type's PostgreSQL spelling, and any type
 * text is checked to be a built-in type first (libs/postgres/common built-in-types.ts), naming the column when not.
 */
export { checkedBuiltInType as checkedTypeText, declaredPostgresType as portableTypeOf } from '@svc/postgres/common';

export function qualifiedName(table: TableRef): string {
  return qualifiedSchemaName(table.schema, table.name);
}
