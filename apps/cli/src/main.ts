#!/usr/bin/env node
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { runCli } from './cli';
import { readCliEnvironment } from './cli-environment';
import { sendOperation } from './http/send-operation';
import { openRegistryConnection } from './keys/registry-connection';

runCli(process.argv.slice(2), {
  env: readCliEnvironment(process.env),
  homeDir: homedir(),
  readFile: (path) => readFile(path),
  writeStdout: (chunk) => process.stdout.write(chunk),
  writeStderr: (text) => process.stderr.write(text),
  send: sendOperation,
  openRegistry: openRegistryConnection,
}).then(
  (exitCode) => {
    process.exitCode = exitCode;
  },
  (error: unknown) => {
    process.stderr.write(`Error: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
