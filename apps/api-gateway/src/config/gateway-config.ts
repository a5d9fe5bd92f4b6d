import { join } from 'node:path';
import { DEFAULT_REGION, EnvReader, readLogLevel, readMaxClockSkewMs, readNatsSettings, type LogLevelSetting, type NatsSettings } from '@svc/config';
import { parseAllowedHosts, type HostAndPort } from '../edge/allowed-hosts';
import { readKeyLimits, type KeyLimits } from '../edge/key-limits';

export interface GatewayConfig {
  port: number;
  host: string;
  nats: NatsSettings;
  /** SVC4 scope region (DESIGN §4). */
  region: string;
  maxBodyBytes: number;
  /** Worker threads that read and validate request bodies, off the event loop. */
  decodeThreads: number;
  /** How long one body may take to read before its thread is replaced and the caller gets a 400. */
  decodeTimeoutMs: number;
  /** How far X-Svc-Date may be from the server clock. */
  maxClockSkewMs: number;
  /** Each access key's rate and share of the replay cache (KEY_RATE_LIMIT_PER_SECOND, KEY_RATE_LIMIT_BURST, REPLAY_ENTRIES_PER_KEY). */
  keyLimits: KeyLimits;
  logLevel: LogLevelSetting;
  /** The operator console's built static files, served at /console/. */
  consoleDir: string;
  /** PEM files to serve HTTPS with (TLS_CERT_FILE, TLS_KEY_FILE); absent: plain HTTP. */
  tls?: TlsFilePaths;
  /** The Host names a signed call may be signed for (SVC_ALLOWED_HOSTS); absent: any. */
  allowedHosts?: HostAndPort[];
  /** The bearer token /metrics asks for (METRICS_TOKEN); absent: /metrics is not served. */
  metricsToken?: string;
}

/** A token shorter than this could be guessed by a scraper's patience. */
export const METRICS_TOKEN_MIN_LENGTH = 16;

export interface TlsFilePaths {
  /** The certificate, followed by any intermediates. */
  certFile: string;
  keyFile: string;
}

/** Where `npm run build` puts the console: dist/console, beside dist/apps (this file runs from dist/apps/api-gateway/src/config). */
const BUILT_CONSOLE_DIR = join(__dirname, '..', '..', '..', '..', 'console');

export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');

export function loadGatewayConfig(environment: Record<string, string | undefined>): GatewayConfig {
  const env = new EnvReader(environment);
  const config: GatewayConfig = {
    port: env.int('PORT', 8080, { min: 0, max: 65535 }),
    host: env.string('HOST', '0.0.0.0'),
    nats: readNatsSettings(env),
    region: env.string('SVC_REGION', DEFAULT_REGION),
    maxBodyBytes: env.int('MAX_BODY_BYTES', 1024 * 1024, { min: 1024 }),
    decodeThreads: env.int('DECODE_THREADS', 2, { min: 1, max: 64 }),
    decodeTimeoutMs: env.int('DECODE_TIMEOUT_SECONDS', 10, { min: 1, max: 3600 }) * 1000,
    maxClockSkewMs: readMaxClockSkewMs(env),
    keyLimits: readKeyLimits(env),
    logLevel: readLogLevel(env),
    consoleDir: env.string('CONSOLE_DIR', BUILT_CONSOLE_DIR),
  };
  const tlsFiles = env.optionalPair('TLS_CERT_FILE', 'TLS_KEY_FILE');
  if (tlsFiles !== undefined) config.tls = { certFile: tlsFiles[0], keyFile: tlsFiles[1] };
  const allowedHosts = env.optionalString('SVC_ALLOWED_HOSTS');
  if (allowedHosts !== undefined) {
    const { hosts, unreadable } = parseAllowedHosts(allowedHosts);
    for (const entry of unreadable) env.problem(`SVC_ALLOWED_HOSTS: '${entry.slice(0, 100)}' is not a host or host:port`);
    if (hosts.length === 0 && unreadable.length === 0) env.problem('SVC_ALLOWED_HOSTS: names no host');
    config.allowedHosts = hosts;
  }
  const metricsToken = env.optionalString('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < METRICS_TOKEN_MIN_LENGTH) {
    env.problem(`METRICS_TOKEN: must be at least ${METRICS_TOKEN_MIN_LENGTH} characters`);
  }
  if (metricsToken !== undefined) config.metricsToken = metricsToken;
  env.done();
  return config;
}
