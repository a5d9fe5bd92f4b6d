import { DEFAULT_NATS_URL } from '@svc/config';
import { parseArgs, type ConnectionFlags, type DescribeWatchCommand, type KeysCreateCommand, type KeysManageCommand, type OperationCommand } from './args/parse-args';
import { ENV_NAMES, type CliEnvironment } from './cli-environment';
import { prepareRequest, type BodySource } from './body/request-body';
import { resolveClientSettings, type ClientSettings } from './credentials/client-settings';
import { CliFailure, ExitCode, UsageError } from './exit-codes';
import { describeNetworkError } from './http/network-error';
import { refusePlainHttpBeyondLoopback } from './http/plain-http-guard';
import type { SendOperationInput, SendOutcome } from './http/send-operation';
import { createAccessKey, renderCreatedKey } from './keys/create-access-key';
import { AnsweredFailure, callKeysApi, createCall, createdKeyOf, lifecycleCall, lifecycleReplyOf, type KeysApiCall } from './keys/keys-over-api';
import { manageAccessKeys, renderKeyLifecycle } from './keys/manage-access-keys';
import { NatsSettingsError, type RegistryConnection } from './keys/registry-connection';
import { renderResponse } from './output/render-response';
import { USAGE } from './usage';
import { runDescribeWatch, type StdoutTerminal } from './watch/run-describe-watch';

/** Everything `svc` touches outside itself; main wires the real ones, tests their own. */
export interface CliIo {
  env: CliEnvironment;
  homeDir: string;
  readFile(path: string): Promise<Buffer>;
  writeStdout(chunk: string | Buffer): void;
  writeStderr(text: string): void;
  send(input: SendOperationInput): Promise<SendOutcome>;
  /** `operatorSeed`: npm start's own bus's operator seed, used when the environment names no NATS identity. */
  openRegistry(natsUrl: string, operatorSeed?: string): Promise<RegistryConnection>;
  /** For `svc describe --watch`: how stdout shows frames, the clock, and Ctrl-C. */
  terminal: StdoutTerminal;
  now(): Date;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Calls `handler` on Ctrl-C until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  /** Where a running `npm start` of this checkout keeps its record (its API and development key). */
  runningStackFile?: string;
}

const FILE_ERRORS = new Map([
  ['ENOENT', 'no such file'],
  ['EACCES', 'permission denied'],
  ['EISDIR', 'it is a directory'],
]);

function fileProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const known = typeof code === 'string' ? FILE_ERRORS.get(code) : undefined;
  return known ?? (error instanceof Error ? error.message : String(error));
}

async function readTextFileIfPresent(io: CliIo, path: string): Promise<string | undefined> {
  try {
    return (await io.readFile(path)).toString('utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw new CliFailure(`cannot read ${path}: ${fileProblem(error)}`, ExitCode.Configuration);
  }
}

async function bodySource(io: CliIo, command: OperationCommand): Promise<BodySource> {
  if (command.file !== undefined) {
    try {
      return { kind: 'file', path: command.file, content: await io.readFile(command.file) };
    } catch (error) {
      throw new CliFailure(`cannot read ${command.file}: ${fileProblem(error)}`, ExitCode.NoInput);
    }
  }
  if (command.body !== undefined) return { kind: 'text', text: command.body };
  return { kind: 'fields', assignments: command.assignments };
}

async function readCaFile(io: CliIo, path: string, origin: string): Promise<Buffer> {
  let pem: Buffer;
  try {
    pem = await io.readFile(path);
  } catch (error) {
    throw new CliFailure(`cannot read the CA file ${path} (${origin}): ${fileProblem(error)}`, ExitCode.Configuration);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new CliFailure(`the CA file ${path} (${origin}) holds no PEM certificate`, ExitCode.Configuration);
  return pem;
}

/** Where and how to call: an endpoint `svc` refuses fails here, before anything is sent; the CA file is read when given. */
async function clientSettings(io: CliIo, flags: ConnectionFlags): Promise<ClientSettings> {
  const settings = await resolveClientSettings({
    flags,
    env: io.env,
    homeDir: io.homeDir,
    readTextFile: (path) => readTextFileIfPresent(io, path),
    ...(io.runningStackFile !== undefined && { runningStackFile: io.runningStackFile }),
  });
  if (settings.notice !== undefined) io.writeStderr(settings.notice);
  refusePlainHttpBeyondLoopback(settings.endpoint, flags.insecure === true);
  const caFile = flags.caFile ?? io.env.caFile;
  if (caFile === undefined) return settings;
  return { ...settings, ca: await readCaFile(io, caFile, flags.caFile !== undefined ? '--ca-file' : ENV_NAMES.caFile) };
}

async function runOperation(io: CliIo, command: OperationCommand): Promise<ExitCode> {
  const request = prepareRequest({
    ...(command.operation !== undefined && { operation: command.operation }),
    ...(command.format !== undefined && { format: command.format }),
    source: await bodySource(io, command),
  });
  const settings = await clientSettings(io, command.connection);
  const outcome = await io.send({ ...settings, ...request });
  if (outcome.kind === 'unreachable') throw new CliFailure(outcome.message, ExitCode.Unreachable);
  const rendered = renderResponse(outcome, { raw: command.raw });
  if (rendered.stdout.length > 0) io.writeStdout(rendered.stdout);
  if (rendered.stderr.length > 0) io.writeStderr(rendered.stderr);
  return rendered.exitCode;
}

async function runWatch(io: CliIo, command: DescribeWatchCommand): Promise<ExitCode> {
  const settings = await clientSettings(io, command.connection);
  return runDescribeWatch(io, settings, command);
}

async function openRegistry(io: CliIo, natsUrlFlag: string | undefined): Promise<RegistryConnection> {
  // No server named: the bus of this checkout's running npm start, as its operator, when it runs one of its own.
  const stackBus = natsUrlFlag === undefined && io.env.natsUrl === undefined ? await runningStackBus(io) : undefined;
  const natsUrl = natsUrlFlag ?? io.env.natsUrl ?? stackBus?.natsUrl ?? DEFAULT_NATS_URL;
  if (stackBus !== undefined) io.writeStderr(`svc: npm start's own bus at ${stackBus.natsUrl}, as its operator (${stackBus.operatorSeedFile}) unless NATS_* names another identity\n`);
  try {
    return await io.openRegistry(natsUrl, stackBus?.operatorSeed);
  } catch (error) {
    if (error instanceof NatsSettingsError) throw new CliFailure(error.message, ExitCode.Configuration);
    throw new CliFailure(describeNetworkError(natsUrl, error), ExitCode.Unreachable);
  }
}

/** npm start's own bus from its running-stack record, with the operator seed read from the file the record names. */
async function runningStackBus(io: CliIo): Promise<{ natsUrl: string; operatorSeedFile: string; operatorSeed: string } | undefined> {
  if (io.runningStackFile === undefined) return undefined;
  const recordText = await readTextFileIfPresent(io, io.runningStackFile).catch(() => undefined);
  let bus: { natsUrl?: unknown; operatorSeedFile?: unknown } | undefined;
  try {
    bus = recordText === undefined ? undefined : (JSON.parse(recordText) as { bus?: typeof bus }).bus;
  } catch {
    return undefined;
  }
  if (typeof bus?.natsUrl !== 'string' || typeof bus.operatorSeedFile !== 'string') return undefined;
  const seedText = await readTextFileIfPresent(io, bus.operatorSeedFile);
  const operatorSeed = /^NATS_NKEY_SEED=(\S+)\s*$/m.exec(seedText ?? '')?.[1];
  if (operatorSeed === undefined) throw new CliFailure(`${bus.operatorSeedFile} holds no NATS_NKEY_SEED line: restart npm start to make it again`, ExitCode.Configuration);
  return { natsUrl: bus.natsUrl, operatorSeedFile: bus.operatorSeedFile, operatorSeed };
}

/** `svc keys` over the signed API: the same output as over the bus, an error answer exits 1 after its messages. */
async function runKeysOverApi(io: CliIo, connection: ConnectionFlags, call: KeysApiCall, render: (answer: Record<string, unknown>) => string): Promise<ExitCode> {
  const settings = await clientSettings(io, connection);
  try {
    io.writeStdout(render(await callKeysApi((input) => io.send(input), settings, call, (text) => io.writeStderr(text))));
    return ExitCode.Ok;
  } catch (error) {
    if (error instanceof AnsweredFailure) return error.exitCode;
    throw error;
  }
}

async function runKeysManage(io: CliIo, command: KeysManageCommand): Promise<ExitCode> {
  const { request, transport } = command;
  if (transport.kind === 'api') {
    return runKeysOverApi(io, transport.connection, lifecycleCall(request), (answer) => renderKeyLifecycle(request, lifecycleReplyOf(request, answer)));
  }
  const registry = await openRegistry(io, transport.natsUrl);
  try {
    io.writeStdout(renderKeyLifecycle(command.request, await manageAccessKeys(registry.requester, command.request)));
    return ExitCode.Ok;
  } finally {
    await registry.close();
  }
}

async function runKeysCreate(io: CliIo, command: KeysCreateCommand): Promise<ExitCode> {
  const { transport } = command;
  if (transport.kind === 'api') return runKeysOverApi(io, transport.connection, createCall(command), (answer) => renderCreatedKey(createdKeyOf(answer)));
  const registry = await openRegistry(io, transport.natsUrl);
  try {
    const key = await createAccessKey(registry.requester, {
      allowedOperations: command.allowedOperations,
      replicationScope: command.replicationScope,
      ...(command.description !== undefined && { description: command.description }),
    });
    io.writeStdout(renderCreatedKey(key));
    return ExitCode.Ok;
  } finally {
    await registry.close();
  }
}

/** Runs one `svc` invocation and returns its exit code; all output goes through `io`. */
export async function runCli(argv: string[], io: CliIo): Promise<ExitCode> {
  try {
    const command = parseArgs(argv);
    switch (command.kind) {
      case 'help':
        io.writeStdout(USAGE);
        return ExitCode.Ok;
      case 'operation':
        return await runOperation(io, command);
      case 'keys-create':
        return await runKeysCreate(io, command);
      case 'keys-manage':
        return await runKeysManage(io, command);
      case 'describe-watch':
        return await runWatch(io, command);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.writeStderr(`svc: ${error.message}\n\n${USAGE}`);
      return ExitCode.Usage;
    }
    if (error instanceof CliFailure) {
      io.writeStderr(`Error: ${error.message}\n`);
      return error.exitCode;
    }
    throw error;
  }
}
