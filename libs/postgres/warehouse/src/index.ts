export { createPostgresWarehouse, type PostgresWarehouseOptions } from './postgres-warehouse';
export { targetTableName } from './table-names';
