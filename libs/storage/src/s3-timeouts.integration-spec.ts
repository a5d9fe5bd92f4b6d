import { createServer, type Server, type Socket } from 'node:net';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client, s3ClientConfig } from './s3-client';
import { StsClients } from './sts-client';
import { STS_REQUEST_TIMEOUT_MS } from './assumed-role';
import { DEFAULT_S3_TIMEOUTS, type BucketTarget } from './s3-settings';

const TARGET: BucketTarget = {
  accessType: 'AccessKey',
  accessKey: 'AKIAEXAMPLEEXAMPLE00',
  secretKey: 'not-a-real-secret',
  bucketName: 'silent-bucket',
  bucketFolderName: 'files',
  regionEndpoint: 'us-east-1',
};

/**
 * A server that accepts connections and never answers (a stuck load balancer, a half-dead S3-compatible server):
 * without timeouts the SDK waits for ever (NodeHttpHandlerOptions: connectionTimeout and socketTimeout "default to 0,
 * which disables the timeout", @smithy/types httpHandlerInitialization), and the batch whose file it writes never ends.
 */
describe('S3 requests to a server that never answers', () => {
  let server: Server;
  let port = 0;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const address = server.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((closed) => server.close(closed));
  });

  it('fail once the socket has been silent for the socket timeout, instead of waiting for ever', async () => {
    const client = createS3Client(TARGET, { endpoint: `http://127.0.0.1:${port}`, allowBucketCreation: false, socketTimeoutMs: 300, connectTimeoutMs: 1000 });
    const startedAt = Date.now();
    const put = client.send(new PutObjectCommand({ Bucket: TARGET.bucketName, Key: 'files/part-0.csv.gz', Body: 'a,b\n' }));
    await expect(put).rejects.toThrow(/timeout|socket/i);
    // The SDK retries (3 attempts by default), each ending after 300 ms of silence.
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    client.destroy();
  }, 30_000);

  it('fail for STS too: AssumeRole to an endpoint that never answers ends within its attempts\' timeouts', async () => {
    const sts = new StsClients({ stsEndpoint: `http://127.0.0.1:${port}`, serviceAccessKeyId: 'AKIAEXAMPLEEXAMPLE00', serviceSecretAccessKey: 'not-a-real-secret' });
    const startedAt = Date.now();
    const call = { region: 'us-east-1', roleArn: 'arn:aws:iam::123456789012:role/copy', roleSessionName: 'svc', externalId: 'svc-0', durationSeconds: 900 };
    await expect(sts.assumeRole(call)).rejects.toThrow();
    expect(Date.now() - startedAt).toBeLessThan(2 * STS_REQUEST_TIMEOUT_MS + 5000);
  }, 60_000);

  it('has timeouts by default, for real S3 as for a configured endpoint', () => {
    for (const settings of [{ allowBucketCreation: false }, { endpoint: 'http://127.0.0.1:9000', allowBucketCreation: true }]) {
      expect(s3ClientConfig(TARGET, settings).requestHandler).toEqual({
        connectionTimeout: DEFAULT_S3_TIMEOUTS.connectTimeoutMs,
        socketTimeout: DEFAULT_S3_TIMEOUTS.socketTimeoutMs,
      });
    }
  });
});
