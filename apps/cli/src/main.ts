#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { runCli } from './cli';
import { readCliEnvironment } from './cli-environment';
import { sendOperation } from './http/send-operation';
import { openRegistryConnection } from './keys/registry-connection';

// `svc describe --watch | head`: once the reader is gone there is nobody left to tell; stop quietly, no stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit();
});

runCli(process.argv.slice(2), {
  env: readCliEnvironment(process.env),
  homeDir: homedir(),
  // dist/apps/cli/src → the checkout, whose npm start writes tmp/local-stack.json while it runs.
  runningStackFile: process.env['LOCAL_STACK_STATE_FILE'] || join(__dirname, '..', '..', '..', '..', 'tmp', 'local-stack.json'),
  readFile: (path) => readFile(path),
  writeStdout: (chunk) => process.stdout.write(chunk),
  writeStderr: (text) => process.stderr.write(text),
  send: sendOperation,
  openRegistry: openRegistryConnection,
  terminal: {
    isTty: process.stdout.isTTY === true,
    columns: () => process.stdout.columns,
    rows: () => process.stdout.rows,
  },
  now: () => new Date(),
  sleep: (ms, signal) => delay(ms, undefined, { signal }).catch(() => undefined),
  onInterrupt: (handler) => {
    // While a handler is registered Ctrl-C no longer kills the process at once: the watch restores the terminal first.
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
    return () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    };
  },
}).then(
  (exitCode) => {
    process.exitCode = exitCode;
  },
  (error: unknown) => {
    process.stderr.write(`Error: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
