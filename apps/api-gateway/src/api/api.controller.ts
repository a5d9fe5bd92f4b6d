import { All, Controller, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiService, type ApiReply } from './api.service';

@Controller()
export class ApiController {
  constructor(private readonly api: ApiService) {}

  @All('api/:operation')
  async call(@Param('operation') operation: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    send(response, await this.api.handle(request, operation));
  }
}

/** Anything outside /api/<Operation>, /health, /live, /ready and /metrics, the root included: the API's own 404 body, not the framework's. */
@Controller()
export class FallbackController {
  constructor(private readonly api: ApiService) {}

  @All('{*path}')
  async unknown(@Req() request: Request, @Res() response: Response): Promise<void> {
    // A browser opening the service's address is sent to the console; API clients keep the API's own 404.
    if (request.method === 'GET' && request.path === '/' && (request.headers.accept ?? '').includes('text/html')) {
      response.redirect(302, '/console/');
      return;
    }
    send(response, await this.api.handle(request, null));
  }
}

function send(response: Response, reply: ApiReply): void {
  response.status(reply.status).set(reply.headers).send(reply.body);
}
