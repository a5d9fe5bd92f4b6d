import { arrayLiteralAsJson, redshiftReadSql } from './redshift-fixture';
import type { TableSpec } from './table-spec';

describe('the Redshift suite fixture', () => {
  it('reads arrays held as PostgreSQL array literals back as JSON, and leaves JSON text alone', () => {
    expect(arrayLiteralAsJson('{}')).toBe('[]');
    expect(arrayLiteralAsJson('{a,b}')).toBe('["a","b"]');
    expect(arrayLiteralAsJson('{"with space","quote \\" and \\\\ backslash",NULL,"NULL",""}')).toBe(JSON.stringify(['with space', 'quote " and \\ backslash', null, 'NULL', '']));
    expect(arrayLiteralAsJson('["a","b"]')).toBe('["a","b"]');
  });

  it('reads every neutral type with an expression Redshift has', () => {
    const spec: TableSpec = {
      schema: 'sales',
      name: 'typed',
      primaryKey: ['id'],
      columns: [
        { name: 'id', type: 'int', nullable: false },
        { name: 'at', type: 'timestamptz' },
        { name: 'raw', type: 'bytes' },
        { name: 'flag', type: 'boolean' },
        { name: 'amount', type: 'decimal(38,10)' },
        { name: 'tags', type: 'text[]' },
      ],
    };
    expect(redshiftReadSql('hist', spec, 'current')).toBe(
      `SELECT CAST("id" AS VARCHAR(64)) AS c0, TO_CHAR("at", 'YYYY-MM-DD HH24:MI:SS.US') AS c1, FROM_VARBYTE("raw", 'hex') AS c2, ` +
        `CASE WHEN "flag" THEN 'true' WHEN NOT "flag" THEN 'false' END AS c3, CAST("amount" AS VARCHAR(64)) AS c4, "tags" AS c5 FROM "hist"."sales_typed" WHERE svc_sys_is_current`,
    );
  });
});
