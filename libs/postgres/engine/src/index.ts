export { postgresEngine, postgresWarehouseOptions } from './postgres-engine';
export { postgresModule } from './postgres-module';
