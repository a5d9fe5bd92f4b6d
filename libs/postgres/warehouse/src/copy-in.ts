export { copyIn } from '@svc/postgres/common';
