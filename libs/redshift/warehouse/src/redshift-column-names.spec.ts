import { Portable, type ColumnDefinition, type TableDefinition } from '@svc/contracts';
import { RedshiftColumnNameError, columnSourceNameSql, tableSourceNameSql, warehouseColumnNames } from './redshift-column-names';
import { missingColumns, redshiftLayout, type RedshiftLayout } from './redshift-layout';
import { RedshiftTableDouble } from './testing/redshift-catalog-double';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';

const column = (name: string): ColumnDefinition => ({ name, sourceType: 'int', portableType: Portable.integer(), nullable: true });
const definitionOf = (names: readonly string[]): TableDefinition => ({
  table: { schema: 'dbo', name: 'wide' },
  columns: [{ ...column('id'), nullable: false }, ...names.map(column)],
  primaryKey: ['id'],
  estimatedRows: 0,
});
const layoutOf = (names: readonly string[]): RedshiftLayout => redshiftLayout(definitionOf(names), { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS);

/** What ensureTable does to the table, against the double: CREATE TABLE the first time, ADD COLUMN for each missing column after. */
function ensure(table: RedshiftTableDouble, layout: RedshiftLayout, created: boolean): string[] {
  if (!created) {
    table.create(layout.columns.map((each) => ({ name: each.name, type: each.redshift.type })));
    return [];
  }
  const missing = missingColumns(layout, table.columns());
  for (const each of missing) table.addColumn(each.name, each.redshift.type);
  return missing.map((each) => each.name);
}

// SQL Server names columns with up to 128 characters (sysname), so up to 384 bytes of UTF-8; Redshift's identifiers
// "Be between 1 and 127 bytes in length" (AWS, Names and identifiers, https://docs.aws.amazon.com/redshift/latest/dg/r_names.html)
// and a longer one is cut to 127 bytes, as PostgreSQL's parser cuts names (RedshiftTableDouble). Before names were
// fitted, the cut name was never found again: every ensure ran ADD COLUMN of the full name, which failed "already
// exists", for ever; and two long names sharing their first 127 bytes made CREATE TABLE fail.
describe('Redshift column names over 127 bytes', () => {
  const long = (tail: string) => `${'measurement_of_the_'.repeat(7)}${tail}`;
  const accented = (tail: string) => `${'é'.repeat(64)}${tail}`;

  it('are found again by the next ensure: no ADD COLUMN of a name Redshift cut', () => {
    const table = new RedshiftTableDouble();
    const layout = layoutOf([long('first')]);
    expect(Buffer.byteLength(long('first'))).toBeGreaterThan(127);
    ensure(table, layout, false);
    expect(ensure(table, layout, true)).toEqual([]);
    expect(ensure(table, layoutOf([long('first'), long('second')]), true)).toHaveLength(1);
    expect(ensure(table, layoutOf([long('first'), long('second')]), true)).toEqual([]);
  });

  it('keep two long names that share their first 127 bytes apart', () => {
    const table = new RedshiftTableDouble();
    expect(() => ensure(table, layoutOf([long('first'), long('second'), accented('a'), accented('b')]), false)).not.toThrow();
    expect(table.columns().size).toBe(5);
  });

  it('fit within 127 bytes on a character boundary, the same way every time, with the source name kept', () => {
    const names = warehouseColumnNames('dbo.wide', [accented('a'), 'short', long('first')]);
    for (const { name } of names) {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(127);
      expect(Buffer.from(name).toString('utf8')).toBe(name);
      expect(name).not.toContain('\uFFFD');
    }
    expect(names[0]?.sourceName).toBe(accented('a'));
    expect(names[1]).toEqual({ name: 'short' });
    expect(warehouseColumnNames('dbo.wide', [long('first')])).toEqual([names[2]]);
  });

  it('map a long key column in the key as well', () => {
    const definition: TableDefinition = { ...definitionOf([]), columns: [{ ...column(long('key')), nullable: false }], primaryKey: [long('key')] };
    const layout = redshiftLayout(definition, { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS);
    expect(layout.keyColumns).toEqual([layout.columns[0]?.name]);
    expect(Buffer.byteLength(layout.keyColumns[0] ?? '')).toBeLessThanOrEqual(127);
  });

  it('refuse a short name equal to a fitted one, naming both columns', () => {
    const fitted = warehouseColumnNames('dbo.wide', [long('first')])[0]?.name ?? '';
    expect(() => layoutOf([long('first'), fitted.toUpperCase()])).toThrow(RedshiftColumnNameError);
    expect(() => layoutOf([long('first'), fitted])).toThrow(`columns "${long('first')}" and "${fitted}" would both be named`);
  });

  it('record the source name of a fitted column as its comment, and nothing for the others', () => {
    const [fitted, short] = warehouseColumnNames('dbo.wide', [`it's ${long('x')}`, 'short']);
    expect(columnSourceNameSql('"dw"."wide"', fitted ?? { name: '' })).toBe(`COMMENT ON COLUMN "dw"."wide"."${fitted?.name ?? ''}" IS 'source column: it''s ${long('x')}'`);
    expect(columnSourceNameSql('"dw"."wide"', short ?? { name: '' })).toBeNull();
  });

  it('fit a long table name too, and record the source name as the table\'s comment', () => {
    const name = `${'sales_by_region_'.repeat(9)}2024`;
    const layout = redshiftLayout({ ...definitionOf([]), table: { schema: 'reporting', name } }, { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false }, TEST_BARE_NAME_SCHEMAS);
    expect(Buffer.byteLength(layout.target)).toBeLessThanOrEqual(127);
    expect(layout.targetSourceName).toBe(`reporting_${name}`);
    expect(tableSourceNameSql(layout.qualifiedTarget, layout.targetSourceName)).toBe(`COMMENT ON TABLE ${layout.qualifiedTarget} IS 'source table: reporting_${name}'`);
    expect(tableSourceNameSql('"dw"."wide"', layoutOf([]).targetSourceName)).toBeNull();
  });
});
