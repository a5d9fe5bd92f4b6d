export { mysqlEngine } from './mysql-engine';
export { mysqlModule } from './mysql-module';
