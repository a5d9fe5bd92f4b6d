export { freePort, waitUntil } from './free-port';
export { startTestNats, type TestNats } from './private-nats';
export { startSilentServer, type SilentServer } from './silent-server';
export {
  TEST_POSTGRES_SERVER_URL,
  TEST_POSTGRES_URL,
  createTempDatabase,
  databaseUrl,
  reserveTempDatabase,
  type TempDatabase,
} from './temp-database';
export { startTestS3, type S3ObjectEvent, type TestS3, type TestS3Options } from './test-s3';
export { ServiceProcess } from './service-process';
export { callSigned, send, signedHeaders, type ApiResponse, type SignOptions } from './signed-client';
export { ADMIN_KEY, TestStack, type TestStackOptions } from './test-stack';
