import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerMalformedHttp, malformedHttpAnswer } from './malformed-http';

function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

describe('answers to requests Node cannot parse', () => {
  it.each([
    [undefined, 400],
    ['HPE_INVALID_METHOD', 400],
    ['HPE_HEADER_OVERFLOW', 431],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408],
  ])('%s is a %i with the API’s JSON error body', (code, status) => {
    const answer = malformedHttpAnswer(code, 42);
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head).toContain('\r\nContent-Type: application/json; charset=utf-8');
    expect(head).toContain(`\r\nContent-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toEqual({ errors: [expect.any(String)], requestId: 42 });
  });

  it('carries the header lines the server adds to every answer (HSTS over HTTPS) before the connection closes', () => {
    const head = malformedHttpAnswer('HPE_INVALID_METHOD', 43, ['Strict-Transport-Security: max-age=31536000']).split('\r\n\r\n')[0] ?? '';
    expect(head.split('\r\n').slice(-2)).toEqual(['Strict-Transport-Security: max-age=31536000', 'Connection: close']);
  });

  describe('on a real server', () => {
    let server: Server;
    let port = 0;
    beforeAll(async () => {
      server = createServer((request, response) => {
        request.resume();
        // Answers late, so that the unreadable bytes after the body are seen while this answer is in flight.
        setTimeout(() => response.writeHead(403, { 'Content-Type': 'application/json', 'Content-Length': '2' }).end('{}'), 100);
      });
      server.on('clientError', (error: NodeJS.ErrnoException, socket) => answerMalformedHttp(error, socket, { info: () => undefined }));
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((done) => server.close(done)));

    it('answers a bad header line with the API body instead of a bare 400', async () => {
      const raw = await exchange(port, 'POST /api/X HTTP/1.1\r\nHost: h\r\nBad Header\r\n\r\n');
      expect(raw).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(raw).toMatch(/\r\n\r\n\{"errors":\["the request is not well-formed HTTP\/1\.1"\],"requestId":\d+\}$/);
    });

    it('lets the answer to the request before the unreadable bytes go first', async () => {
      const raw = await exchange(port, `POST /api/X HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}${'A'.repeat(5000)}`);
      expect(raw).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*\r\n\r\n\{\}HTTP\/1\.1 400 Bad Request\r\n/);
    });
  });
});
