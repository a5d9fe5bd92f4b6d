import { describeStagingContract, describeWarehouseContract, type ContractNaming } from '@svc/engines/testing';
import { FakeStaging, FakeWarehouse } from './fake-engine';

/** The fake keeps any name: the longest SQL Server keeps (128 characters) stands for "long". */
const naming: ContractNaming = { longest: { characters: 128 }, caseSensitive: true };

/** The fake every service's unit tests run against must keep the same contract as the engines it stands for. */
describeStagingContract([
  {
    name: 'FakeStaging',
    naming,
    open: async () => {
      const staging = new FakeStaging();
      return {
        connector: staging,
        rows: async (table) => staging.tableRows(table),
        recreateDatabase: async () => staging.recreate(),
        close: async () => staging.close(),
      };
    },
  },
]);

describeWarehouseContract([
  {
    name: 'FakeWarehouse',
    naming,
    open: async () => {
      const warehouse = new FakeWarehouse();
      const parts = new Map<string, string>();
      return {
        connector: warehouse,
        reader: {
          readPart: async (key) =>
            (async function* () {
              yield Buffer.from(parts.get(key) ?? '', 'utf8');
            })(),
        },
        stage: async (batch, csvParts) => {
          const partKeys = csvParts.map((csv, index) => {
            const key = `${batch.batchId}/part-${index}`;
            parts.set(key, csv);
            return key;
          });
          return { bucket: 'bucket', manifestKey: `${batch.batchId}/manifest.json`, partKeys };
        },
        rows: async (table, options, history) => warehouse.tableRows(table, options, history),
        columnNames: async (table, options) => warehouse.tables.get(`${options.schema}.${warehouse.targetTableName(table)}`) ?? [],
        recreateDatabase: async () => warehouse.recreate(),
        close: async () => warehouse.close(),
      };
    },
  },
]);
