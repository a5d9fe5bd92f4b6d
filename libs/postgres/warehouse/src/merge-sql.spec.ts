import type { TableDefinition } from '@svc/contracts';
import type { WarehouseTableOptions } from '@svc/engines';
import { copyChangesSql, copySeedPartSql, createLoadTableSql, firstSeedSql, mergeChangesSql, mergeSeedSql } from './merge-sql';
import { swapShadowSql } from './seed-swap';
import { createShadowSql, createTargetSql } from './table-ddl';
import { tableLayout } from './table-layout';
import { portableTypeOfPostgres } from '@svc/postgres/common';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';

const orders: TableDefinition = {
  table: { schema: 'sales', name: 'order "lines"' },
  columns: [
    { name: 'order_id', sourceType: 'bigint', portableType: portableTypeOfPostgres('bigint'), nullable: false },
    { name: 'line', sourceType: 'integer', portableType: portableTypeOfPostgres('integer'), nullable: false },
    { name: 'amount', sourceType: 'numeric(38,10)', portableType: portableTypeOfPostgres('numeric(38,10)'), nullable: true },
    { name: 'status', sourceType: 'order_status', portableType: portableTypeOfPostgres('text'), nullable: false },
  ],
  primaryKey: ['order_id', 'line'],
  estimatedRows: 0,
};

const keyOnly: TableDefinition = {
  table: { schema: 'public', name: 'tags' },
  columns: [{ name: 'tag', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: false }],
  primaryKey: ['tag'],
  estimatedRows: 0,
};

const noKey: TableDefinition = { ...orders, table: { schema: 'public', name: 'events' }, primaryKey: [] };

/** A load's stamp as the statement after its lock makes it (load-stamp.ts). */
const STAMP = `'2024-05-22 12:34:56.789012+00'::timestamptz`;

function options(scdType: WarehouseTableOptions['scdType'], addUpdateTimestamp = true): WarehouseTableOptions {
  return { schema: 'dwh', scdType, addUpdateTimestamp };
}

/** Every statement of one table, in the order a load runs them, as one readable script. */
function script(statements: string[]): string {
  return `\n${statements.map((statement) => `${statement};`).join('\n\n')}\n`;
}

describe('generated warehouse SQL', () => {
  it.each(['Type1', 'Type2'] as const)('%s: tables, change merge and seed merge', (scdType) => {
    const layout = tableLayout(orders, options(scdType), TEST_BARE_NAME_SCHEMAS);
    expect(script(createTargetSql(layout))).toMatchSnapshot('create target');
    expect(script([createShadowSql(layout)])).toMatchSnapshot('create shadow');
    expect(script([createLoadTableSql(layout), copyChangesSql(layout), ...mergeChangesSql(layout, STAMP)])).toMatchSnapshot('change batch');
    expect(script([copySeedPartSql(layout), ...mergeSeedSql(layout, STAMP)])).toMatchSnapshot('final seed part');
    const first = firstSeedSql(layout, STAMP);
    if (scdType === 'Type1') expect(script(first ?? [])).toMatchSnapshot('first seed into an empty target');
    else expect(first).toBeNull();
  });

  it('a first seed swapped in: the shadow becomes the target, keyed (Type1) or not', () => {
    expect(script(swapShadowSql(tableLayout(orders, options('Type1'), TEST_BARE_NAME_SCHEMAS), { updateTimestamp: true }, STAMP))).toMatchSnapshot('Type1');
    expect(script(swapShadowSql(tableLayout(noKey, options('Type1', false), TEST_BARE_NAME_SCHEMAS), { updateTimestamp: false }, STAMP))).toMatchSnapshot('no primary key');
  });

  it('table without a primary key: plain table, replaced by a seed, no change merge', () => {
    const layout = tableLayout(noKey, options('Type2', false), TEST_BARE_NAME_SCHEMAS);
    expect(layout.history).toBe('plain');
    expect(script(createTargetSql(layout))).toMatchSnapshot('create target');
    expect(script(mergeSeedSql(layout, STAMP))).toMatchSnapshot('final seed part');
    expect(() => mergeChangesSql(layout, STAMP)).toThrow(/no primary key/);
  });

  it('a table whose columns are all key columns has nothing to compare or update', () => {
    const type1 = mergeSeedSql(tableLayout(keyOnly, options('Type1', false), TEST_BARE_NAME_SCHEMAS), STAMP).join(';\n');
    expect(type1).toContain('ON CONFLICT ("tag") DO NOTHING');
    const type2 = [...mergeChangesSql(tableLayout(keyOnly, options('Type2', false), TEST_BARE_NAME_SCHEMAS), STAMP), ...mergeSeedSql(tableLayout(keyOnly, options('Type2', false), TEST_BARE_NAME_SCHEMAS), STAMP)];
    expect(type2.join(';\n')).not.toContain('IS DISTINCT FROM');
    expect(type2.join(';\n')).not.toContain('IS NOT DISTINCT FROM');
  });

  it('refuses a source column named like a service column', () => {
    const clash: TableDefinition = { ...keyOnly, columns: [...keyOnly.columns, { name: 'svc_op', sourceType: 'text', portableType: portableTypeOfPostgres('text'), nullable: true }] };
    expect(() => tableLayout(clash, options('Type1'), TEST_BARE_NAME_SCHEMAS)).toThrow(/"svc_op".*reserves/);
  });
});
