import { parse } from 'yaml';

/** One service of docker-compose.yml as the manifests must mirror it. */
export interface ComposeService {
  image?: string;
  command?: string[];
  /** Its settings; a value given by an interpolation `${X:-default}` is the default, a required one (`${X:?…}`) undefined. */
  environment: Map<string, string | undefined>;
  envFiles: string[];
  /** `deploy.replicas` as `${X_REPLICAS:-n}` gives it by default. */
  replicas?: number;
  stopGraceSeconds?: number;
}

interface RawService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  env_file?: string[];
  deploy?: { replicas?: string | number };
  stop_grace_period?: string;
}

/** A compose value with its interpolations resolved to their defaults; undefined when it needs the environment. */
function resolved(value: string): string | undefined {
  if (/\$\{[A-Z0-9_]+(:\?[^}]*)?\}/.test(value)) return undefined;
  return value.replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, '$1');
}

function seconds(duration: string | undefined): number | undefined {
  const match = /^(\d+)(s|m)$/.exec(duration ?? '');
  return match ? Number(match[1]) * (match[2] === 'm' ? 60 : 1) : undefined;
}

export function composeServices(text: string): Map<string, ComposeService> {
  const file = parse(text, { merge: true }) as { services: Record<string, RawService> };
  return new Map(
    Object.entries(file.services).map(([name, raw]) => {
      const replicas = raw.deploy?.replicas === undefined ? undefined : resolved(String(raw.deploy.replicas));
      return [
        name,
        {
          image: raw.image,
          command: raw.command,
          environment: new Map(Object.entries(raw.environment ?? {}).map(([key, value]) => [key, resolved(String(value ?? ''))])),
          envFiles: raw.env_file ?? [],
          replicas: replicas === undefined ? undefined : Number(replicas),
          stopGraceSeconds: seconds(raw.stop_grace_period),
        },
      ];
    }),
  );
}
