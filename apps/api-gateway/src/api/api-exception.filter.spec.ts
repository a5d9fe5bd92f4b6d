import { BadRequestException, NotFoundException, type ArgumentsHost } from '@nestjs/common';
import { ApiError } from './api-error';
import { ApiExceptionFilter } from './api-exception.filter';
import type { ApiReply, ApiService } from './api.service';

function httpHost(request: object, response: object): ArgumentsHost {
  return {
    getType: () => 'http',
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ArgumentsHost;
}

describe('ApiExceptionFilter', () => {
  const failures: unknown[] = [];
  const api = {
    failedOutsideHandler: (_request: unknown, error: unknown): ApiReply => {
      failures.push(error);
      return { status: error instanceof ApiError ? error.status : 500, headers: { 'Content-Type': 'application/xml; charset=utf-8' }, body: '<ErrorResponse/>' };
    },
  } as unknown as ApiService;
  const sent: { status?: number; headers?: object; body?: string } = {};
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    set(headers: object) {
      sent.headers = headers;
      return this;
    },
    send(body: string) {
      sent.body = body;
    },
  };

  beforeEach(() => failures.splice(0));

  it('answers a path Express cannot decode with the API body, without quoting the path', () => {
    new ApiExceptionFilter(api).catch(new BadRequestException("Failed to decode param '%E0%A4%A'"), httpHost({}, response));
    expect(failures).toEqual([new ApiError(400, ['the request path cannot be read: it is not valid percent-encoded UTF-8'])]);
    expect(sent).toEqual({ status: 400, headers: { 'Content-Type': 'application/xml; charset=utf-8' }, body: '<ErrorResponse/>' });
  });

  it('answers a route nobody serves with the API 404', () => {
    new ApiExceptionFilter(api).catch(new NotFoundException('Cannot POST /'), httpHost({}, response));
    expect(failures).toEqual([new ApiError(404, ['no such resource: operations are called as POST /api/<Operation>'])]);
  });

  it('hands any other failure on as it is (a 500 with the request id, logged)', () => {
    const failure = new TypeError('boom');
    new ApiExceptionFilter(api).catch(failure, httpHost({}, response));
    expect(failures).toEqual([failure]);
    expect(sent.status).toBe(500);
  });
});
