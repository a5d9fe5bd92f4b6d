import { request as httpRequest } from 'node:http';

export interface RawAnswer {
  status: number;
  body: string;
}

/** One HTTP request exactly as given (no SDK to sign, retry or parse it): what the specs of the front send by hand. */
export function rawRequest(endpoint: string, method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${endpoint}${path}`, { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (answer) => {
      let text = '';
      answer.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: text }));
    });
    request.on('error', reject);
    request.end(body);
  });
}
