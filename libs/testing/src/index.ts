export { freePort, waitUntil } from './free-port';
export { waitForLockWaiters } from './lock-waiters';
export { holdStatement, type HeldStatement } from './held-statement';
export { NatsServerProcess, natsServerBinary, startTestNats, type TestNats, type TestNatsNodeLayout, type TestNatsOptions, type TestNatsServer } from './private-nats';
export { startTestNatsCluster, type TestNatsCluster, type TestNatsClusterNode } from './private-nats-cluster';
export { SAMPLE_PEOPLE_TABLE, sampleChangeBatch } from './sample-batches';
export { scrambledKeys } from './scrambled-keys';
export { signedCallFor, type SigningKeyPair } from './signed-call';
export { startRecordingS3, type RecordedS3Request, type RecordingS3 } from './recording-s3';
export { startRecordingPostgresServer, type RecordingPostgresOptions, type RecordingPostgresServer } from './recording-postgres-server';
export { sampleReplicationConfig, type ReplicationConfigOverrides } from './sample-replication-config';
export { startMutePostgresServer, type MutePostgresServer } from './mute-postgres-server';
export { startSilentServer, type SilentServer } from './silent-server';
export {
  TEST_POSTGRES_SERVER_URL,
  TEST_POSTGRES_URL,
  createTempDatabase,
  databaseUrl,
  reserveTempDatabase,
  type TempDatabase,
} from './temp-database';
export { TEST_S3_ACCOUNT, startTestS3, type S3ObjectEvent, type TestS3, type TestS3Options } from './test-s3';
export { startTestSts, type IssuedSession, type StsCall, type TestSts, type TestStsOptions, type TrustedRole } from './test-sts';
export { typescriptWorker } from './typescript-worker';
export { TEST_WORKER_KEY } from './worker-key';
export { EMBEDDED_S3_CREDENTIALS_FILE, embeddedS3CredentialsPath, loadOrCreateS3Credentials, readS3Credentials } from './embedded-s3/credentials-file';
export {
  DEVELOPMENT_ACCESS_KEY_ID,
  DEVELOPMENT_KEY_FILE,
  developmentKeyPath,
  loadOrCreateDevelopmentKey,
  readDevelopmentKey,
  type DevelopmentKey,
} from './local-keys/development-key-file';
export { checkS3Signature, type S3Account, type S3ErrorAnswer, type S3SignatureCheck } from './embedded-s3/s3-signature-check';
export { startS3SignatureFront, type S3SignatureFront, type S3SignatureFrontOptions } from './embedded-s3/s3-signature-front';
export { startSignedS3rver, type SignedS3rver, type SignedS3rverOptions } from './embedded-s3/signed-s3rver';
export { type EmbeddedStsOptions, type RoleOfArn, type RoleTrust } from './embedded-s3/sts-endpoint';
export { postgresAccount, postgresBinDir } from './postgres-binaries';
export { seededRandom } from './seeded-random';
export { PrivatePostgres, type PrivateCluster } from './private-postgres';
export { createLogicalTempDatabase, logicalPostgresUrl, walLevelOf } from './logical-postgres';
export { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver, type WebhookReceiverOptions } from './webhook-receiver';
export { TEST_SNS_ACCOUNT, startTestSns, type PublishedSnsMessage, type SnsCall, type TestSns } from './test-sns';
export { startTestSmtp, type ReceivedMail, type SmtpUser, type TestSmtp, type TestSmtpOptions } from './test-smtp';
export { PrivateMariaDb, type PrivateMariaDbOptions } from './private-mariadb';
