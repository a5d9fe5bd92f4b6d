import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CONSOLE_FILES, consoleResponse } from './console-response';
import type { ConsoleFiles } from './console-files';

/** The operator console's static files at /console/ (GET and HEAD); every API call it makes is signed like any other. */
@Controller('console')
export class ConsoleController {
  constructor(@Inject(CONSOLE_FILES) private readonly files: ConsoleFiles) {}

  @Get()
  root(@Req() request: Request, @Res() response: Response): void {
    send(response, consoleResponse(this.files, request.originalUrl, request.headers['if-none-match']));
  }

  @Get('{*path}')
  file(@Req() request: Request, @Res() response: Response): void {
    send(response, consoleResponse(this.files, request.originalUrl, request.headers['if-none-match']));
  }
}

function send(response: Response, reply: ReturnType<typeof consoleResponse>): void {
  response.status(reply.status).set(reply.headers).end(reply.body);
}
