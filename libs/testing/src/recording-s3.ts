import { createServer } from 'node:http';

/** What a request to the recording server was signed with. */
export interface RecordedS3Request {
  method: string;
  path: string;
  /** The access key id of the SigV4 `Credential=<id>/<date>/<region>/s3/aws4_request`. */
  accessKeyId: string | null;
  /** The region of that credential scope. */
  region: string | null;
  /** x-amz-security-token: present when temporary (STS) credentials signed the request. */
  securityToken: string | null;
}

export interface RecordingS3 {
  endpoint: string;
  requests: RecordedS3Request[];
  stop(): Promise<void>;
}

/**
 * An HTTP server standing in for an S3 endpoint that accepts every request (200, empty body) and records who signed
 * it: for tests of which credentials a client uses, not of S3's behaviour (that is what startTestS3 is for).
 */
export async function startRecordingS3(): Promise<RecordingS3> {
  const requests: RecordedS3Request[] = [];
  const server = createServer((request, response) => {
    const credential = /Credential=([^/,\s]+)\/\d{8}\/([^/]+)\/s3\//.exec(request.headers.authorization ?? '');
    const token = request.headers['x-amz-security-token'];
    requests.push({
      method: request.method ?? '',
      path: request.url ?? '',
      accessKeyId: credential?.[1] ?? null,
      region: credential?.[2] ?? null,
      securityToken: typeof token === 'string' ? token : null,
    });
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-length': '0', etag: '"0"' });
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('recording S3 server has no TCP address');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
