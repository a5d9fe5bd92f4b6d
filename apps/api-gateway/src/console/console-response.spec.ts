import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleFiles } from './console-files';
import { CONSOLE_CONTENT_SECURITY_POLICY } from './console-headers';
import { consoleResponse } from './console-response';

describe('the console static files', () => {
  let root: string;
  let folder: string;
  let files: ConsoleFiles;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'console-files-'));
    folder = join(root, 'console');
    mkdirSync(join(folder, 'js', 'app'), { recursive: true });
    writeFileSync(join(folder, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(folder, 'console.css'), 'body{}');
    writeFileSync(join(folder, 'js', 'app', 'main.js'), 'export {};');
    writeFileSync(join(folder, 'notes.txt'), 'not part of the console');
    writeFileSync(join(root, 'secret.html'), 'outside the folder');
    symlinkSync(join(root, 'secret.html'), join(folder, 'linked.html'));
    files = ConsoleFiles.load(folder);
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const get = (url: string, ifNoneMatch?: string) => consoleResponse(files, url, ifNoneMatch);

  it('serves index.html at /console/ and each file with its content type, the CSP and nosniff', () => {
    const index = get('/console/');
    expect(index.status).toBe(200);
    expect(String(index.body)).toContain('<title>console</title>');
    expect(index.headers).toMatchObject({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
    });
    expect(CONSOLE_CONTENT_SECURITY_POLICY).toMatch(/script-src 'self'(;|$)/);
    expect(CONSOLE_CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(get('/console/js/app/main.js?v=1').headers['Content-Type']).toBe('text/javascript; charset=utf-8');
    expect(get('/console/console.css').headers['Content-Type']).toBe('text/css; charset=utf-8');
  });

  it('redirects /console to /console/', () => {
    expect(get('/console')).toMatchObject({ status: 308, headers: { Location: '/console/' } });
  });

  it('answers 304 when the browser holds the current version', () => {
    const etag = get('/console/console.css').headers['ETag'];
    expect(etag).toMatch(/^".+"$/);
    expect(get('/console/console.css', etag).status).toBe(304);
    expect(get('/console/console.css', '"other"').status).toBe(200);
  });

  it.each([
    '/console/../secret.html',
    '/console/%2e%2e/secret.html',
    '/console/js/../../secret.html',
    '/console/js%2f..%2f..%2fsecret.html',
    '/console/..%5csecret.html',
    '/console//etc/passwd',
    '/console/js/app/main.js%00.html',
    '/console/notes.txt',
    '/console/js',
    '/console/js/',
    '/console/JS/app/main.js',
  ])('answers 404 for %s', (url) => {
    const reply = get(url);
    expect(reply.status).toBe(404);
    expect(String(reply.body)).not.toContain('outside the folder');
    expect(reply.headers['Content-Type']).toBe('text/plain; charset=utf-8');
  });

  it('serves the console types of file in the folder and no symlink (it could point outside)', () => {
    expect(files.names).toEqual(['console.css', 'index.html', 'js/app/main.js']);
    expect(get('/console/linked.html').status).toBe(404);
  });

  it('says how to build the console when the folder is missing', () => {
    const missing = ConsoleFiles.load(join(root, 'nowhere'));
    expect(missing.missingReason).toMatch(/the console is not built .*run npm run build/);
    const reply = consoleResponse(missing, '/console/', undefined);
    expect(reply.status).toBe(404);
    expect(String(reply.body)).toMatch(/npm run build/);
  });
});
