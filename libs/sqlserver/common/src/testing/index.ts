export { startTdsServerDouble, type LoginError, type TdsServerBehaviour, type TdsServerDouble } from './tds-server-double';
