import { join } from 'node:path';
import { DEFAULT_REGION } from '@svc/config';
import { ENV_NAMES, type CliEnvironment } from '../cli-environment';
import type { ConnectionFlags } from '../args/parse-args';
import { CliFailure, ExitCode, UsageError } from '../exit-codes';
import { IniSyntaxError, parseIni, type IniProfiles } from './ini-file';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:8080';
export const DEFAULT_PROFILE = 'default';

export const PROFILE_KEYS = {
  accessKeyId: 'svc_access_key_id',
  secretAccessKey: 'svc_secret_access_key',
  endpoint: 'endpoint',
  region: 'region',
} as const;

export interface ClientCredentials {
  accessKeyId: string;
  secretKey: string;
}

export interface ClientSettings {
  credentials: ClientCredentials;
  endpoint: string;
  region: string;
  /** PEM certificates trusted for an https:// endpoint instead of the system's (--ca-file, SVC_CA_FILE). */
  ca?: Buffer;
  /** Said on stderr before the call: where credentials came from when no setting of the user's named them. */
  notice?: string;
}

export interface SettingsSources {
  flags: ConnectionFlags;
  env: CliEnvironment;
  homeDir: string;
  /** The file's text, or undefined when it does not exist. */
  readTextFile: (path: string) => Promise<string | undefined>;
  /**
   * The record a running `npm start` keeps (tmp/local-stack.json): its API and, when it runs on its development key,
   * that key. Used only when no credentials are set at all.
   */
  runningStackFile?: string;
}

interface RunningStackRecord {
  api: string;
  developmentKey: ClientCredentials;
}

export function credentialsFilePath(env: CliEnvironment, homeDir: string): string {
  const configured = env.credentialsFile;
  if (configured === undefined) return join(homeDir, '.svc', 'credentials');
  return configured === '~' || configured.startsWith('~/') ? join(homeDir, configured.slice(1)) : configured;
}

async function loadProfiles(path: string, readTextFile: SettingsSources['readTextFile']): Promise<IniProfiles | undefined> {
  const text = await readTextFile(path);
  if (text === undefined) return undefined;
  try {
    return parseIni(text);
  } catch (error) {
    if (error instanceof IniSyntaxError) throw new CliFailure(`cannot parse ${path}: ${error.message}`, ExitCode.Configuration);
    throw error;
  }
}

function checkedEndpoint(endpoint: string, origin: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new UsageError(`the endpoint from ${origin} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`the endpoint from ${origin} must be an http or https URL`);
  return endpoint;
}

/** The endpoint the user set (flag, environment, profile), if any. */
function configuredEndpoint(flags: ConnectionFlags, env: CliEnvironment, profile: Map<string, string> | undefined, profileName: string): string | undefined {
  if (flags.endpoint !== undefined) return checkedEndpoint(flags.endpoint, '--endpoint');
  if (env.endpoint !== undefined) return checkedEndpoint(env.endpoint, ENV_NAMES.endpoint);
  const fromProfile = profile?.get(PROFILE_KEYS.endpoint);
  if (fromProfile) return checkedEndpoint(fromProfile, `profile [${profileName}]`);
  return undefined;
}

async function readRunningStack(path: string | undefined, readTextFile: SettingsSources['readTextFile']): Promise<RunningStackRecord | undefined> {
  if (path === undefined) return undefined;
  const text = await readTextFile(path).catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const record = JSON.parse(text) as { api?: unknown; developmentKey?: { accessKeyId?: unknown; secretKey?: unknown } };
    const { api, developmentKey } = record;
    if (typeof api !== 'string' || typeof developmentKey?.accessKeyId !== 'string' || typeof developmentKey.secretKey !== 'string') return undefined;
    return { api, developmentKey: { accessKeyId: developmentKey.accessKeyId, secretKey: developmentKey.secretKey } };
  } catch {
    return undefined;
  }
}

/** Credentials from the environment or the profile; undefined when neither has any. */
function pickCredentials(env: CliEnvironment, profile: Map<string, string> | undefined, filePath: string): ClientCredentials | undefined {
  if (env.accessKeyId !== undefined || env.secretAccessKey !== undefined) {
    if (env.accessKeyId === undefined || env.secretAccessKey === undefined) {
      const missing = env.accessKeyId === undefined ? ENV_NAMES.accessKeyId : ENV_NAMES.secretAccessKey;
      throw new CliFailure(
        `${missing} is not set; set both ${ENV_NAMES.accessKeyId} and ${ENV_NAMES.secretAccessKey}, or neither to use ${filePath}`,
        ExitCode.Configuration,
      );
    }
    return { accessKeyId: env.accessKeyId, secretKey: env.secretAccessKey };
  }
  const accessKeyId = profile?.get(PROFILE_KEYS.accessKeyId);
  const secretKey = profile?.get(PROFILE_KEYS.secretAccessKey);
  return accessKeyId && secretKey ? { accessKeyId, secretKey } : undefined;
}

function noCredentials(profile: Map<string, string> | undefined, profileName: string, filePath: string): CliFailure {
  const accessKeyId = profile?.get(PROFILE_KEYS.accessKeyId);
  const secretKey = profile?.get(PROFILE_KEYS.secretAccessKey);
  const where =
    profile === undefined
      ? `no profile [${profileName}] in ${filePath}`
      : `profile [${profileName}] in ${filePath} lacks ${[!accessKeyId && PROFILE_KEYS.accessKeyId, !secretKey && PROFILE_KEYS.secretAccessKey]
          .filter(Boolean)
          .join(' and ')}`;
  return new CliFailure(
    `no credentials: ${where}. Set ${ENV_NAMES.accessKeyId} and ${ENV_NAMES.secretAccessKey}, or put ` +
      `${PROFILE_KEYS.accessKeyId} and ${PROFILE_KEYS.secretAccessKey} under [${profileName}] in ${filePath} ` +
      `(the file's path can be changed with ${ENV_NAMES.credentialsFile}; create a key with 'svc keys create')`,
    ExitCode.Configuration,
  );
}

/**
 * aws-cli style resolution. Credentials: the two environment variables, else the profile, else — with no profile
 * named and no endpoint set, or the one it serves — the development key of an `npm start` running from this checkout
 * (said on stderr). Endpoint and region: flag, environment, profile, default. The profile is --profile, SVC_PROFILE
 * or `default`; naming one that the file lacks is an error, while a missing `default` only matters when the
 * credentials have to come from it.
 */
export async function resolveClientSettings(sources: SettingsSources): Promise<ClientSettings> {
  const { flags, env } = sources;
  const filePath = credentialsFilePath(env, sources.homeDir);
  const profileName = flags.profile ?? env.profile ?? DEFAULT_PROFILE;
  const profileNamedExplicitly = flags.profile !== undefined || env.profile !== undefined;
  const profiles = await loadProfiles(filePath, sources.readTextFile);
  const profile = profiles?.get(profileName);
  if (profileNamedExplicitly && profile === undefined) {
    throw new CliFailure(
      profiles === undefined ? `profile [${profileName}] was asked for, but ${filePath} does not exist` : `no profile [${profileName}] in ${filePath}`,
      ExitCode.Configuration,
    );
  }
  const region = flags.region ?? env.region ?? (profile?.get(PROFILE_KEYS.region) || DEFAULT_REGION);
  const endpoint = configuredEndpoint(flags, env, profile, profileName);
  const credentials = pickCredentials(env, profile, filePath);
  if (credentials !== undefined) return { credentials, endpoint: endpoint ?? DEFAULT_ENDPOINT, region };
  const stack = profileNamedExplicitly ? undefined : await readRunningStack(sources.runningStackFile, sources.readTextFile);
  if (stack === undefined || (endpoint !== undefined && endpoint !== stack.api)) throw noCredentials(profile, profileName, filePath);
  return {
    credentials: stack.developmentKey,
    endpoint: stack.api,
    region,
    notice:
      `svc: no credentials set; using the development access key ${stack.developmentKey.accessKeyId} of the npm start ` +
      `running here (${sources.runningStackFile ?? ''}, API ${stack.api})\n`,
  };
}
