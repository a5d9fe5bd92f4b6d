import { ENGINE_PAIRS, MARIADB_PAIR_PREFIX, describeEachPair, selectedPairs } from './engine-pairs';
import { mysqlSourceSuite } from './mysql-source-suite';

/** The MySQL source suite (mysql-source-suite.ts) for every pair with a MariaDB source: into PostgreSQL and each Redshift. */
describeEachPair(
  'mysql source',
  mysqlSourceSuite,
  selectedPairs(ENGINE_PAIRS).filter((pair) => pair.name.startsWith(`${MARIADB_PAIR_PREFIX} `)),
);
