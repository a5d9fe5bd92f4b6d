export { postgresEngine, postgresWarehouseOptions } from './postgres-engine';
