export { PrivateMariaDb, type PrivateMariaDbOptions } from './private-mariadb';
