import { Portable, type ColumnDefinition, type TableDefinition } from '@svc/contracts';
import { ColumnTypeChangeError, type WarehouseTableOptions } from '@svc/engines';
import type { Pool } from 'pg';
import type { StagedFileLoader } from './file-loaders';
import { redshiftLayout } from './redshift-layout';
import { TABLE_COLUMNS_SQL, TABLE_COLUMN_TYPES_SQL, ownedTableSql } from './redshift-sql';
import { RedshiftWarehouse } from './redshift-warehouse';
import { TEST_BARE_NAME_SCHEMAS } from '@svc/engines/testing';

interface CatalogColumn {
  name: string;
  /** As information_schema spells it: `character varying(160)`, `integer`. */
  type: string;
  key?: boolean;
}

type Catalog = Map<string, CatalogColumn[]>;

const refusal = (message: string, code: string) => Object.assign(new Error(message), { code });

/**
 * A Redshift cluster as far as ALTER TABLE … ALTER COLUMN … TYPE goes, as the AWS documentation describes it
 * (Amazon Redshift Database Developer Guide, "ALTER TABLE", https://docs.aws.amazon.com/redshift/latest/dg/r_ALTER_TABLE.html):
 * the only type change is "ALTER COLUMN column_name TYPE updated_varchar_data_type_size" (a VARCHAR's size; the
 * guide's limits: "You can't alter columns with UNIQUE, PRIMARY KEY, or FOREIGN KEY", "You can't alter columns
 * inside a multi-statement block (BEGIN...END)", and a VARCHAR is never shortened below its values). Inside a
 * transaction the cluster answers "ALTER TABLE ALTER COLUMN cannot run inside a transaction block" (the error drivers
 * report, e.g. github.com/dbeaver/dbeaver/issues/9449). Everything else it is sent succeeds and returns no row,
 * except the catalog reads, answered from `catalog`, and the ownership record (the tables are the service's).
 */
class RedshiftDouble {
  readonly sent: string[] = [];
  private inTransaction = false;

  constructor(private readonly catalog: Catalog) {}

  asPool(): Pool {
    const session = {
      query: (text: string, params: unknown[] = []) => this.query(text, params),
      release: () => undefined,
    };
    return { connect: () => Promise.resolve(session), query: (text: string, params: unknown[] = []) => this.query(text, params), end: () => Promise.resolve() } as unknown as Pool;
  }

  private query(text: string, params: unknown[]): Promise<{ rows: object[]; rowCount: number }> {
    try {
      return Promise.resolve(this.answer(text, params));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private answer(text: string, params: unknown[]): { rows: object[]; rowCount: number } {
    this.sent.push(text);
    const none = { rows: [], rowCount: 0 };
    if (text === 'BEGIN') this.inTransaction = true;
    if (text === 'COMMIT' || text === 'ROLLBACK') this.inTransaction = false;
    const columns = this.catalog.get(`${String(params[0])}.${String(params[1])}`);
    if (text === TABLE_COLUMNS_SQL) return columns ? { rows: columns.map(({ name }) => ({ name })), rowCount: columns.length } : none;
    if (text === TABLE_COLUMN_TYPES_SQL) return columns ? { rows: columns.map(({ name, type }) => ({ name, type })), rowCount: columns.length } : none;
    if (text.startsWith(ownedTableSql('dw').split(' WHERE')[0] ?? '')) return { rows: [{ owned: 1 }], rowCount: 1 };
    const alter = /^ALTER TABLE "(\w+)"\."(\w+)" ALTER COLUMN "(\w+)" TYPE (.+)$/.exec(text);
    if (alter) this.alterColumnType(`${alter[1]}.${alter[2]}`, alter[3] ?? '', alter[4] ?? '');
    return none;
  }

  private alterColumnType(table: string, name: string, type: string): void {
    if (this.inTransaction) throw refusal('ALTER TABLE ALTER COLUMN cannot run inside a transaction block', '25001');
    const column = this.catalog.get(table)?.find((candidate) => candidate.name === name);
    if (!column) throw refusal(`column "${name}" of relation "${table}" does not exist`, '42703');
    const wanted = /^VARCHAR\((\d+)\)$/i.exec(type);
    const current = /^character varying\((\d+)\)$/.exec(column.type);
    if (!wanted || !current) throw refusal(`ALTER TABLE ALTER COLUMN TYPE: only a VARCHAR's size can change, not ${column.type} to ${type}`, '0A000');
    if (column.key) throw refusal(`cannot alter column "${name}": it is part of a PRIMARY KEY`, '0A000');
    if (Number(wanted[1]) < Number(current[1])) throw refusal('cannot decrease the size of a VARCHAR column', '0A000');
    column.type = `character varying(${wanted[1]})`;
  }
}

const noFiles: StagedFileLoader = { load: () => Promise.reject(new Error('no load in these tests')) };
const BOUNDS = { statementTimeoutMs: 60_000, lockWaitMs: 480_000 };
const options: WarehouseTableOptions = { schema: 'dw', scdType: 'Type1', addUpdateTimestamp: false };

/** Table `c`: id, n of the given types, and label a varchar of `labelLength` characters. */
const definitionWith = (n: Pick<ColumnDefinition, 'sourceType' | 'portableType'>, labelLength: number): TableDefinition => ({
  table: { schema: 'public', name: 'c' },
  columns: [
    { name: 'id', sourceType: 'integer', portableType: Portable.integer(), nullable: false },
    { name: 'n', ...n, nullable: true },
    { name: 'label', sourceType: `character varying(${labelLength})`, portableType: Portable.varchar(labelLength), nullable: true },
  ],
  primaryKey: ['id'],
  estimatedRows: 0,
});

/** The warehouse as the service made it for `c` with n integer and label varchar(40) (VARCHAR(160): 4 bytes a character). */
function catalogOf(definition: TableDefinition): Catalog {
  const layout = redshiftLayout(definition, options, TEST_BARE_NAME_SCHEMAS);
  const columns = (): CatalogColumn[] => [
    { name: 'id', type: 'integer', key: true },
    { name: 'n', type: 'integer' },
    { name: 'label', type: 'character varying(160)' },
  ];
  return new Map([
    [`dw.${layout.target}`, columns()],
    [`dw.${layout.shadow}`, columns().map((column) => ({ ...column, key: false }))],
  ]);
}

describe('RedshiftWarehouse.ensureTable: a column whose type changed in the source (issue 21, item 13)', () => {
  const first = definitionWith({ sourceType: 'integer', portableType: Portable.integer() }, 40);

  it('lengthens a VARCHAR in target and shadow, outside the transaction block, and says so', async () => {
    const catalog = catalogOf(first);
    const double = new RedshiftDouble(catalog);
    const warehouse = new RedshiftWarehouse(double.asPool(), noFiles, 'redshift', TEST_BARE_NAME_SCHEMAS, BOUNDS);
    const outcome = await warehouse.ensureTable(definitionWith({ sourceType: 'integer', portableType: Portable.integer() }, 100), options);
    expect(outcome).toEqual({
      created: false,
      addedColumns: [],
      schemaChanges: ['widened column label from character varying(160) to VARCHAR(400) in the warehouse'],
    });
    for (const columns of catalog.values()) expect(columns.find((column) => column.name === 'label')?.type).toBe('character varying(400)');
  });

  it('fails the table, naming column and types, for int → bigint, which Redshift cannot alter in place; nothing is altered', async () => {
    const catalog = catalogOf(first);
    const double = new RedshiftDouble(catalog);
    const warehouse = new RedshiftWarehouse(double.asPool(), noFiles, 'redshift', TEST_BARE_NAME_SCHEMAS, BOUNDS);
    const ensuring = warehouse.ensureTable(definitionWith({ sourceType: 'bigint', portableType: Portable.bigint() }, 100), options);
    await expect(ensuring).rejects.toBeInstanceOf(ColumnTypeChangeError);
    await expect(ensuring).rejects.toThrow(
      '[public].[c]: the type of column(s) n from integer to BIGINT changed in the source and the Redshift warehouse table cannot follow (Redshift changes a column type in place only to lengthen a VARCHAR',
    );
    expect(double.sent.filter((text) => text.includes('ALTER COLUMN'))).toEqual([]);
    expect(catalog.get('dw.c')?.find((column) => column.name === 'label')?.type).toBe('character varying(160)');
  });

  it('keeps a column wider than the source now needs, altering nothing', async () => {
    const double = new RedshiftDouble(catalogOf(first));
    const warehouse = new RedshiftWarehouse(double.asPool(), noFiles, 'redshift', TEST_BARE_NAME_SCHEMAS, BOUNDS);
    expect(await warehouse.ensureTable(definitionWith({ sourceType: 'smallint', portableType: Portable.smallint() }, 10), options)).toEqual({ created: false, addedColumns: [] });
    expect(double.sent.filter((text) => text.includes('ALTER COLUMN'))).toEqual([]);
  });
});
