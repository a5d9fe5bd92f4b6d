import { Portable } from '@svc/contracts';
import { describeStagingContract, type ContractColumnTypes } from '@svc/engines/testing';
import { CollationStagingDouble } from './collation.double';
import { SqlServerStaging } from './sqlserver-staging';

/**
 * The staging contract for SQL Server staging against the double of a SQL Server staging database
 * (collation.double.ts: control tables, transactions rolled back, names and collations as SQL Server documents them).
 * Whether a live server runs the same statements the same way: docs/ENGINES.md, "what only a live server can confirm".
 */
/**
 * The double keeps one copy of the database and restores it when a transaction rolls back, so it runs one transaction
 * at a time; its #svc_batch_rows is one table, where SQL Server gives each session its own ("Local temporary tables are
 * visible only in the current session", CREATE TABLE, https://learn.microsoft.com/sql/t-sql/statements/create-table-transact-sql).
 */
const ONE_SESSION = 'the double runs one transaction at a time (one database copy restored on rollback, one #svc_batch_rows)';

const columnTypes: ContractColumnTypes = {
  integer: { sourceType: 'int', portableType: Portable.integer() },
  text: { sourceType: 'nvarchar(200)', portableType: Portable.varchar(200) },
};

describeStagingContract([
  {
    name: 'SQL Server (double, case-insensitive database collation)',
    columnTypes,
    // "Both regular and delimited identifiers must contain from 1 through 128 characters"; names compare under the
    // database's collation, so a _CI_ database holds 'Mixed Case' and 'mixed case' as one name ("Database identifiers").
    naming: { longest: { characters: 128 }, caseSensitive: false },
    oneSessionAtATime: ONE_SESSION,
    open: async () => {
      const database = new CollationStagingDouble({ tempdbCollation: 'SQL_Latin1_General_CP1_CI_AS', databaseCollation: 'Latin1_General_100_CI_AS' });
      const connector = new SqlServerStaging(database);
      return {
        connector,
        rows: async (table) => database.textRows(table.schema, table.name),
        recreateDatabase: async () => database.recreate(),
        close: () => connector.close(),
      };
    },
  },
  {
    name: 'SQL Server (double, case-sensitive database collation)',
    columnTypes,
    naming: { longest: { characters: 128 }, caseSensitive: true },
    oneSessionAtATime: ONE_SESSION,
    open: async () => {
      const database = new CollationStagingDouble({ tempdbCollation: 'SQL_Latin1_General_CP1_CI_AS', databaseCollation: 'Latin1_General_100_CS_AS' });
      const connector = new SqlServerStaging(database);
      return {
        connector,
        rows: async (table) => database.textRows(table.schema, table.name),
        recreateDatabase: async () => database.recreate(),
        close: () => connector.close(),
      };
    },
  },
]);
