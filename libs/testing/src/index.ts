export { freePort, waitUntil } from './free-port';
export { startTestNats, type TestNats } from './private-nats';
export { TEST_POSTGRES_URL, createTempDatabase, databaseUrl, type TempDatabase } from './temp-database';
export { startTestS3, type TestS3 } from './test-s3';
