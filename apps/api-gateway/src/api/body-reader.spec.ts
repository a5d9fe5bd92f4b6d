import { Readable } from 'node:stream';
import { ApiError } from './api-error';
import { readBody } from './body-reader';

describe('readBody', () => {
  it('returns the exact bytes sent', async () => {
    const body = await readBody(Readable.from([Buffer.from('<A>'), Buffer.from('ü</A>')]), undefined, 100);
    expect(body.toString('utf8')).toBe('<A>ü</A>');
  });

  it('refuses by Content-Length before reading', async () => {
    await expect(readBody(Readable.from([Buffer.alloc(10)]), '2000', 1000)).rejects.toMatchObject({ status: 413 });
  });

  it('refuses a body that grows past the limit while streaming', async () => {
    const chunks = Array.from({ length: 5 }, () => Buffer.alloc(300));
    const failure = await readBody(Readable.from(chunks), undefined, 1000).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(413);
    expect((failure as ApiError).messages[0]).toContain('1000 bytes');
  });
});
