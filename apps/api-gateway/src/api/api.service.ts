import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { encodeError, encodeResponse, foreignCharsetOf, wireFormatOf, type WireFormat } from '@svc/api-codec';
import { OPERATIONS, Subjects, isOperationName, type OperationName, type SignedCall } from '@svc/contracts';
import type { VerifiedHeaders } from '@svc/signing';
import { JsonLogger } from '@svc/logging';
import { NatsRequester } from '@svc/messaging';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { RequestDecoder } from '../decode/request-decoder';
import { KeyRateLimiter } from '../edge/key-rate-limiter';
import { ReplayGuard } from '../edge/replay-guard';
import { ApiError, NO_SUCH_RESOURCE_MESSAGE } from './api-error';
import { readBody, refuseDeclaredOverLimit } from './body-reader';
import { httpStatusOf } from './http-status';
import { ApiMetrics } from './api-metrics';
import { nextRequestId } from './request-id';
import { RequestAuthenticator } from './request-authenticator';

interface AuthenticatedCall {
  operation: OperationName;
  format: WireFormat;
  body: Buffer;
  accessKeyId: string;
  signature: VerifiedHeaders;
  signed: SignedCall;
}

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One API call, in the order that gives the most useful answer: route (405/404), content type (415), headers
 * alone (413 by Content-Length, 403 without a well-formed signature, with a stale date or for a Host not served,
 * 429 naming a key with no call left: no body is read for any, and the registry is not asked), size (413), signature
 * and permission (403, the registry's verdict), the key's rate (429, spending a call), body (400), replay of a
 * call that changes state (403; 429 when the key's share of the replay cache is full), then the registry's verdict. A
 * replay is judged after the body: a call refused for its body changed nothing, so sending it again (the console's
 * permission probes) gets the same 400.
 */
@Injectable()
export class ApiService {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly rateLimiter: KeyRateLimiter,
    private readonly replayGuard: ReplayGuard,
    private readonly decoder: RequestDecoder,
    private readonly requester: NatsRequester,
    private readonly logger: JsonLogger,
    private readonly metrics: ApiMetrics,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** `operationSegment` is null for a path that is not /api/<Operation> at all. */
  async handle(request: IncomingMessage, operationSegment: string | null): Promise<ApiReply> {
    const requestId = nextRequestId();
    const startedAt = Date.now();
    const format = responseFormatOf(request);
    let reply: ApiReply;
    let accessKeyId: string | undefined;
    try {
      const call = await this.authenticatedCall(request, operationSegment);
      accessKeyId = call.accessKeyId;
      reply = await this.execute(call, requestId);
    } catch (error) {
      reply = this.errorReply(error, format, requestId);
    }
    this.metrics.record(operationSegment ?? '', reply.status, Date.now() - startedAt);
    this.logger.info('api call', {
      requestId,
      operation: operationSegment ?? request.url,
      status: reply.status,
      durationMs: Date.now() - startedAt,
      ...(accessKeyId !== undefined && { caller: accessKeyId }),
    });
    return reply;
  }

  /**
   * The answer to a request that failed before or outside `handle` (a path the router could not decode): the
   * API's error body in the request's format, logged like every call.
   */
  failedOutsideHandler(request: IncomingMessage, error: unknown): ApiReply {
    request.resume();
    const requestId = nextRequestId();
    const reply = this.errorReply(error, responseFormatOf(request), requestId);
    this.metrics.record('', reply.status, 0);
    this.logger.info('api call', { requestId, operation: request.url, status: reply.status, durationMs: 0 });
    return reply;
  }

  private async authenticatedCall(request: IncomingMessage, operationSegment: string | null): Promise<AuthenticatedCall> {
    if (operationSegment === null) {
      request.resume();
      throw new ApiError(404, [NO_SUCH_RESOURCE_MESSAGE]);
    }
    if (request.method !== 'POST') {
      request.resume();
      throw new ApiError(405, [`method ${request.method ?? '?'} is not allowed: every operation is a POST`], { Allow: 'POST' });
    }
    if (!isOperationName(operationSegment)) {
      request.resume();
      throw new ApiError(404, [`unknown operation '${operationSegment}'. Operations: ${OPERATIONS.join(', ')}`]);
    }
    const format = wireFormatOf(request.headers['content-type']);
    if (!format) {
      request.resume();
      throw new ApiError(415, ['Content-Type must be application/xml or application/json']);
    }
    const charset = foreignCharsetOf(request.headers['content-type']);
    if (charset !== null) {
      request.resume();
      throw new ApiError(415, [`the Content-Type charset must be utf-8 (bodies are read as UTF-8), not '${charset.slice(0, 40)}'`]);
    }
    try {
      refuseDeclaredOverLimit(request.headers['content-length'], this.config.maxBodyBytes);
      const signature = this.authenticator.checkBeforeBody(request);
      this.rateLimiter.refuseWhenSpent(signature.authorization.accessKeyId, new Date());
    } catch (error) {
      request.resume();
      throw error;
    }
    const body = await readBody(request, request.headers['content-length'], this.config.maxBodyBytes);
    const caller = await this.authenticator.authenticate(request, body, operationSegment);
    return { operation: operationSegment, format, body, ...caller };
  }

  private async execute({ operation, format, body, accessKeyId, signature, signed }: AuthenticatedCall, requestId: number): Promise<ApiReply> {
    this.rateLimiter.admit(accessKeyId, new Date());
    const payload = await this.decoder.decode(operation, format, body);
    this.replayGuard.admit(operation, signature, new Date());
    await this.replayGuard.confirmFirst(operation, signature);
    const reply = await this.requester
      .request(Subjects.registryOperation, { requestId: String(requestId), operation, payload, signed })
      .catch(() => {
        throw new ApiError(503, ['the job registry is not answering; try again shortly']);
      });
    if (!reply.ok) throw new ApiError(httpStatusOf(reply.error.code), reply.error.messages);

    const encoded = encodeResponse(operation, format, reply.value);
    // An empty answer carries the request's content type too; without it Express would call it text/html.
    return { status: 200, headers: { 'Content-Type': encoded.contentType, 'X-Svc-Request-Id': String(requestId) }, body: encoded.body };
  }

  private errorReply(error: unknown, format: WireFormat, requestId: number): ApiReply {
    let status = 500;
    let messages = ['internal error; quote the request id when reporting it'];
    let extraHeaders: Record<string, string> = {};
    if (error instanceof ApiError) {
      ({ status, messages } = error);
      extraHeaders = error.headers;
    } else {
      this.logger.error('unexpected failure', { requestId, error });
    }
    const encoded = encodeError(format, requestId, messages);
    return {
      status,
      headers: { 'Content-Type': encoded.contentType, 'X-Svc-Request-Id': String(requestId), ...extraHeaders },
      body: encoded.body,
    };
  }
}

/** Errors answer in the request's format; with no usable Content-Type, in what Accept names, else JSON. */
function responseFormatOf(request: IncomingMessage): WireFormat {
  const fromContentType = wireFormatOf(request.headers['content-type']);
  if (fromContentType) return fromContentType;
  const accept = request.headers.accept ?? '';
  return /xml/i.test(accept) && !/json/i.test(accept) ? 'xml' : 'json';
}
