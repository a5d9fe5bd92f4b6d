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
}

export interface SettingsSources {
  flags: ConnectionFlags;
  env: CliEnvironment;
  homeDir: string;
  /** The file's text, or undefined when it does not exist. */
  readTextFile: (path: string) => Promise<string | undefined>;
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

function pickEndpoint(flags: ConnectionFlags, env: CliEnvironment, profile: Map<string, string> | undefined, profileName: string): string {
  if (flags.endpoint !== undefined) return checkedEndpoint(flags.endpoint, '--endpoint');
  if (env.endpoint !== undefined) return checkedEndpoint(env.endpoint, ENV_NAMES.endpoint);
  const fromProfile = profile?.get(PROFILE_KEYS.endpoint);
  if (fromProfile) return checkedEndpoint(fromProfile, `profile [${profileName}]`);
  return DEFAULT_ENDPOINT;
}

function pickCredentials(
  env: CliEnvironment,
  profile: Map<string, string> | undefined,
  profileName: string,
  filePath: string,
): ClientCredentials {
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
  if (accessKeyId && secretKey) return { accessKeyId, secretKey };
  const where =
    profile === undefined
      ? `no profile [${profileName}] in ${filePath}`
      : `profile [${profileName}] in ${filePath} lacks ${[!accessKeyId && PROFILE_KEYS.accessKeyId, !secretKey && PROFILE_KEYS.secretAccessKey]
          .filter(Boolean)
          .join(' and ')}`;
  throw new CliFailure(
    `no credentials: ${where}. Set ${ENV_NAMES.accessKeyId} and ${ENV_NAMES.secretAccessKey}, or put ` +
      `${PROFILE_KEYS.accessKeyId} and ${PROFILE_KEYS.secretAccessKey} under [${profileName}] in ${filePath} ` +
      `(the file's path can be changed with ${ENV_NAMES.credentialsFile}; create a key with 'svc keys create')`,
    ExitCode.Configuration,
  );
}

/**
 * aws-cli style resolution. Credentials: the two environment variables, else the profile.
 * Endpoint and region: flag, environment, profile, default. The profile is --profile, SVC_PROFILE or
 * `default`; naming one that the file lacks is an error, while a missing `default` only matters when
 * the credentials have to come from it.
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
  return {
    credentials: pickCredentials(env, profile, profileName, filePath),
    endpoint: pickEndpoint(flags, env, profile, profileName),
    region: flags.region ?? env.region ?? (profile?.get(PROFILE_KEYS.region) || DEFAULT_REGION),
  };
}
