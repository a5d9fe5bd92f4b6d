import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { checkS3Signature, type S3Account, type S3ErrorAnswer } from './s3-signature-check';
import { answerSts, isStsRequest, type EmbeddedStsOptions } from './sts-endpoint';
import { StsSessions } from './sts-sessions';

export interface S3SignatureFrontOptions {
  /** Port to listen on (0: any free one), on 127.0.0.1. */
  port: number;
  /** Unix socket of the S3 server behind the front, in a directory only this user can enter. */
  upstreamSocketPath: string;
  account: S3Account;
  /**
   * Also answer STS on this endpoint, as MinIO does: AssumeRole for `account` on the roles `sts.trust` allows, and
   * S3 requests signed with the sessions it issued. Absent: S3 only.
   */
  sts?: EmbeddedStsOptions;
  /** The front's clock (default: the system's); tests of expiry move it. */
  now?: () => Date;
}

export interface S3SignatureFront {
  port: number;
  close(): Promise<void>;
}

const EMPTY_SHA256 = createHash('sha256').digest('hex');
/** Hop-by-hop headers, the credentials (the server behind knows no accounts), and what the front itself answers. */
const NOT_FORWARDED = new Set(['authorization', 'x-amz-security-token', 'connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect']);
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/**
 * An HTTP front that passes to the S3 server behind it only the requests whose AWS Signature Version 4 verifies
 * for `account`, as S3 does, and answers every other request with S3's error XML. Bodies stream through; a
 * body whose SHA-256 the request declares is first written to a private file while hashed and passed on only
 * when it matches, so a replayed signature cannot carry other content.
 */
export async function startS3SignatureFront(options: S3SignatureFrontOptions): Promise<S3SignatureFront> {
  const spoolDirectory = mkdtempSync(join(tmpdir(), 'svc-s3-front-'));
  const now = options.now ?? (() => new Date());
  const sessions = new StsSessions(now);
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const answered = options.sts !== undefined && isStsRequest(req) ? answerSts(req, res, { account: options.account, sessions, now }, options.sts) : passVerified(req, res, options, sessions, now(), spoolDirectory);
    answered.catch(() => {
      if (!res.headersSent) answerError(req, res, { status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' });
      else res.destroy();
    });
  };
  const server = createServer(handle);
  // Verify before inviting the body: a refused client never sends it.
  server.on('checkContinue', handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => closeServer(server).finally(() => rmSync(spoolDirectory, { recursive: true, force: true })),
  };
}

async function passVerified(req: IncomingMessage, res: ServerResponse, options: S3SignatureFrontOptions, sessions: StsSessions, now: Date, spoolDirectory: string): Promise<void> {
  const lookup = options.sts !== undefined ? (accessKeyId: string) => sessions.find(accessKeyId) : undefined;
  const check = checkS3Signature({ method: req.method ?? '', url: req.url ?? '/', headers: req.headers }, options.account, now, lookup);
  if (!check.ok) return answerError(req, res, check.error);
  if (req.headers.expect?.toLowerCase() === '100-continue') res.writeContinue();

  const headers = forwardedHeaders(req.headers);
  if (check.payload.kind === 'unsigned') return forward(req, res, options.upstreamSocketPath, headers, req);
  if (!hasBody(req.headers)) {
    if (check.payload.hex !== EMPTY_SHA256) return answerError(req, res, contentHashMismatch());
    return forward(req, res, options.upstreamSocketPath, headers, null);
  }
  const spool = join(spoolDirectory, randomBytes(12).toString('hex'));
  try {
    const hash = createHash('sha256');
    req.on('data', (chunk: Buffer) => hash.update(chunk));
    await pipeline(req, createWriteStream(spool, { mode: 0o600 }));
    if (hash.digest('hex') !== check.payload.hex) return answerError(req, res, contentHashMismatch());
    headers['content-length'] = String(statSync(spool).size);
    await forward(req, res, options.upstreamSocketPath, headers, createReadStream(spool));
  } finally {
    unlinkQuietly(spool);
  }
}

function forward(req: IncomingMessage, res: ServerResponse, socketPath: string, headers: IncomingHttpHeaders, body: Readable | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const upstream = httpRequest({ socketPath, method: req.method, path: req.url, headers }, (answer) => {
      const returned: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !NOT_RETURNED.has(name)) returned[name] = value;
      res.writeHead(answer.statusCode ?? 502, returned);
      pipeline(answer, res).then(resolve, reject);
    });
    upstream.on('error', reject);
    // A client that goes away mid-request takes the upstream request with it.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    if (body === null) upstream.end();
    else pipeline(body, upstream).catch(reject);
  });
}

function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const forwarded: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!NOT_FORWARDED.has(name)) forwarded[name] = value;
  return forwarded;
}

function hasBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? '0') > 0;
}

function contentHashMismatch(): S3ErrorAnswer {
  return { status: 400, code: 'XAmzContentSHA256Mismatch', message: 'The provided \'x-amz-content-sha256\' header does not match what was computed.' };
}

/** S3's error answer: the XML body of https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html (none for HEAD). */
function answerError(req: IncomingMessage, res: ServerResponse, error: S3ErrorAnswer): void {
  const requestId = randomUUID();
  const body =
    req.method === 'HEAD'
      ? ''
      : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${error.code}</Code><Message>${escapeXml(error.message)}</Message><RequestId>${requestId}</RequestId></Error>`;
  // The body of a refused request is read and dropped, so that the client sees the answer rather than a reset.
  req.resume();
  res.writeHead(error.status, {
    'content-type': 'application/xml',
    'content-length': String(Buffer.byteLength(body)),
    'x-amz-request-id': requestId,
    ...(req.headers.expect !== undefined && { connection: 'close' }),
  });
  res.end(body);
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Never written (the client went away first).
  }
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
