import { warehouseTableName, type TableRef } from '@svc/contracts';
import { fitIdentifier } from './identifiers';

/** The warehouse table for a source table: `name` from a default schema, else `<schema>_<name>`, fit to 63 bytes. */
export function targetTableName(table: TableRef, bareNameSchemas: ReadonlySet<string>): string {
  return fitIdentifier(warehouseTableName(table, bareNameSchemas));
}

/** Where the parts of a seed collect until its final part merges them into the target. */
export function shadowTableName(target: string): string {
  return fitIdentifier(`svc_seed_${target}`);
}

/** Type2: at most one current row per key. */
export function currentKeyIndexName(target: string): string {
  return fitIdentifier(`${target}_svc_sys_current_key`);
}
