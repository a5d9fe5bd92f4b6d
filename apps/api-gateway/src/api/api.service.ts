import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { encodeError, encodeResponse, decodeRequest, wireFormatOf, type WireFormat } from '@svc/api-codec';
import { parseOperationRequest } from '@svc/api-model';
import { OPERATIONS, Subjects, isOperationName, type OperationName } from '@svc/contracts';
import { JsonLogger } from '@svc/logging';
import { NatsRequester } from '@svc/messaging';
import { GATEWAY_CONFIG, type GatewayConfig } from '../config/gateway-config';
import { ApiError } from './api-error';
import { readBody } from './body-reader';
import { httpStatusOf } from './http-status';
import { ApiMetrics } from './api-metrics';
import { nextRequestId } from './request-id';
import { RequestAuthenticator } from './request-authenticator';

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One API call, in the order that gives the most useful answer: route (405/404), content type (415),
 * size (413), signature and permission (403), body (400), then the registry's verdict.
 */
@Injectable()
export class ApiService {
  constructor(
    private readonly authenticator: RequestAuthenticator,
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
      reply = await this.execute(call.operation, call.format, call.body, requestId, call.accessKeyId);
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

  private async authenticatedCall(request: IncomingMessage, operationSegment: string | null) {
    if (operationSegment === null) {
      request.resume();
      throw new ApiError(404, [`no such resource: operations are called as POST /api/<Operation>`]);
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
    const body = await readBody(request, request.headers['content-length'], this.config.maxBodyBytes);
    const accessKeyId = await this.authenticator.authenticate(request, body, operationSegment);
    return { operation: operationSegment, format, body, accessKeyId };
  }

  private async execute(operation: OperationName, format: WireFormat, body: Buffer, requestId: number, accessKeyId: string): Promise<ApiReply> {
    const decoded = decodeRequest(operation, format, body);
    if (!decoded.ok) throw new ApiError(400, decoded.messages);
    const parsed = parseOperationRequest(operation, decoded.tree);
    if (!parsed.ok) throw new ApiError(400, parsed.messages);

    const reply = await this.requester
      .request(Subjects.registryOperation, { requestId: String(requestId), accessKeyId, operation, payload: parsed.value })
      .catch(() => {
        throw new ApiError(503, ['the job registry is not answering; try again shortly']);
      });
    if (!reply.ok) throw new ApiError(httpStatusOf(reply.error.code), reply.error.messages);

    const encoded = encodeResponse(operation, format, reply.value);
    const headers: Record<string, string> = { 'X-Svc-Request-Id': String(requestId) };
    if (encoded.body !== '') headers['Content-Type'] = encoded.contentType;
    return { status: 200, headers, body: encoded.body };
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
