import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { BaseRpcExceptionFilter } from '@nestjs/microservices';
import type { Request, Response } from 'express';
import { ApiError } from './api-error';
import { ApiService } from './api.service';

/** What the framework refuses by itself, said in the API's words (never its message, which quotes the path). */
const FRAMEWORK_REFUSALS: ReadonlyMap<number, string> = new Map([
  [400, 'the request path cannot be read: it is not valid percent-encoded UTF-8'],
  [404, 'no such resource: operations are called as POST /api/<Operation>'],
  [405, 'method not allowed: every operation is a POST'],
  [413, 'the request body is too large'],
]);

/**
 * Every failure that reaches Nest instead of an API controller — a path Express cannot decode, a route it does not
 * know — answers with the API's error body in the request's format, not Nest's JSON or Express's HTML. The
 * gateway's NATS responders keep Nest's own RPC handling.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly rpc = new BaseRpcExceptionFilter();

  constructor(private readonly api: ApiService) {}

  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') return this.rpc.catch(exception, host);
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const refusal = exception instanceof HttpException ? FRAMEWORK_REFUSALS.get(exception.getStatus()) : undefined;
    const error = exception instanceof HttpException && refusal !== undefined ? new ApiError(exception.getStatus(), [refusal]) : exception;
    const reply = this.api.failedOutsideHandler(request, error);
    if (response.headersSent) {
      response.end();
      return undefined;
    }
    response.status(reply.status).set(reply.headers).send(reply.body);
    return undefined;
  }
}
