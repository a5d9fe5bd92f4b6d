import { POSTGRES_SOURCE_LOSSES, REDSHIFT_WAREHOUSE_LOSSES, SQL_SERVER_SOURCE_LOSSES, asWarehouseHolds } from './declared-losses';
import { EDGE_CASES, edgeCaseRows, edgeCaseWorkload, edgeKeys } from './edge-cases';

describe('declared losses and the edge-case table', () => {
  it('expects NULL for an empty binary value only where the warehouse declares it, and nothing else changed', () => {
    const rows = [['a', '1', '2', '3', 'x', null, ''], ['b', '1', '2', '3', '', null, '00']];
    expect(asWarehouseHolds(EDGE_CASES, rows, { emptyBinary: 'kept' })).toEqual(rows);
    expect(asWarehouseHolds(EDGE_CASES, rows, REDSHIFT_WAREHOUSE_LOSSES)).toEqual([
      ['a', '1', '2', '3', 'x', null, null],
      ['b', '1', '2', '3', '', null, '00'],
    ]);
  });

  it("holds 'a' and 'a ' as two keys where the source keeps them apart, and never two keys a source takes for one", () => {
    expect(edgeCaseRows(POSTGRES_SOURCE_LOSSES).map((row) => row['Code'])).toEqual(['a', 'a ', '  ']);
    const sqlServerKeys = edgeCaseRows(SQL_SERVER_SOURCE_LOSSES).map((row) => (typeof row['Code'] === 'string' ? row['Code'].trimEnd() : null));
    expect(new Set(sqlServerKeys).size).toBe(sqlServerKeys.length);
    const { blank, plain } = edgeKeys(POSTGRES_SOURCE_LOSSES);
    const changed = edgeCaseWorkload(POSTGRES_SOURCE_LOSSES).flatMap((work) => work.changes.map((change) => [change.kind, change.kind === 'insert' ? change.rows[0]?.['Code'] : change.where]));
    expect(changed).toEqual([
      ['update', { column: 'Code', equals: blank }],
      ['delete', { column: 'Code', equals: plain }],
      ['insert', plain],
    ]);
  });
});
