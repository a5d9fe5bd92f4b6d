export { retentionHours } from '@svc/contracts';
