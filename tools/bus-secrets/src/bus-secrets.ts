import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CertificateAuthority } from '@svc/crypto';
import { BUS_ROLES, busNames, generateBusCredentials, natsServerConfig, type BusRole } from '@svc/messaging';
import { INSTALLATION_SETTING } from '@svc/contracts';
import { composeNatsLayout, type NatsLayout } from './nats-layout';
import { writeObjectStoreSecrets } from './object-store-secrets';

export interface BusSecretsOptions {
  /** The folder to write (git-ignored; compose reads it as ./deploy/secrets). */
  dir: string;
  /** Names of the NATS nodes, as the services reach them (compose's service names). */
  natsNodes: readonly string[];
  /** Extra names or addresses the api-gateway's certificate must be valid for (the host clients use). */
  gatewayHosts: readonly string[];
  /** Where the nodes run: compose's (the default) or Kubernetes' (kubernetesNatsLayout). */
  layout?: NatsLayout;
  /** MinIO's root account and the services' MinIO user (compose runs MinIO; a Kubernetes cluster uses its own S3). */
  objectStore?: boolean;
}

/** Where the secrets are, as compose mounts them into the containers. */
const CONTAINER_CERTS = '/etc/nats/certs';
const CLUSTER_NAME = 'svc';
const CLIENT_PORT = 4222;
/**
 * The names the api-gateway's certificate is made for, and so the Host names it answers to (SVC_ALLOWED_HOSTS):
 * loopback on the docker host, its compose service name, and the `--gateway-host` names.
 */
export function gatewayNames(gatewayHosts: readonly string[]): string[] {
  return ['localhost', '127.0.0.1', 'api-gateway', ...gatewayHosts];
}

/** The roles that hold the worker key: the registry seals runtime configurations for the pipeline workers. */
const WORKER_KEY_HOLDERS: readonly BusRole[] = ['job-registry', 'extractor', 'stager', 'loader'];

/**
 * Everything the production-shaped compose needs to close the bus, made once: a private CA; a certificate for the
 * NATS nodes (also their route client certificate) and one for the api-gateway; an nkey per role; each node's
 * nats-server configuration (natsServerConfig: the permission model, TLS on clients and routes); one env file per
 * role with its seed, the worker key for the registry and the workers, and the operator's file for the CLI on the
 * host; MinIO's root account and the services' own MinIO user (object-store-secrets.ts). Files readable by their
 * owner only, but the PEM files a container must read (its user is not the host's).
 */
export function writeBusSecrets(options: BusSecretsOptions): string[] {
  if (existsSync(join(options.dir, 'env'))) {
    throw new Error(`${options.dir} already holds secrets; remove it first to make new ones (every service then needs restarting)`);
  }
  const layout = options.layout ?? composeNatsLayout(options.natsNodes);
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  chmodSync(options.dir, 0o700);
  const certsDir = join(options.dir, 'certs');
  const authority = CertificateAuthority.create(certsDir);
  const issued = [
    authority.issue({ name: 'nats', hosts: layout.certificateHosts }),
    authority.issue({ name: 'gateway', hosts: gatewayNames(options.gatewayHosts) }),
  ];
  // Bind-mounted one by one into containers running as other users: readable there, guarded here by the 0700 folder.
  for (const file of [authority.certFile, ...issued.flatMap(({ certFile, keyFile }) => [certFile, keyFile])]) chmodSync(file, 0o644);

  const credentials = generateBusCredentials();
  const natsDir = join(options.dir, 'nats');
  mkdirSync(natsDir, { mode: 0o700 });
  const written: string[] = [];
  for (const node of layout.nodes) {
    const file = join(natsDir, `${node}.json`);
    const config = natsServerConfig({
      serverName: node,
      port: CLIENT_PORT,
      storeDir: '/data',
      identities: credentials,
      tls: { certFile: `${CONTAINER_CERTS}/nats.pem`, keyFile: `${CONTAINER_CERTS}/nats-key.pem`, caFile: `${CONTAINER_CERTS}/ca.pem` },
      cluster: { name: CLUSTER_NAME, port: layout.routePort, routes: layout.routesOf(node) },
      monitor: layout.monitor,
    });
    writeFileSync(file, layout.finish(config), { mode: 0o644 });
    written.push(file);
  }

  const envDir = join(options.dir, 'env');
  mkdirSync(envDir, { mode: 0o700 });
  const workerKey = randomBytes(32).toString('hex');
  for (const role of BUS_ROLES) {
    const seed = credentials.find((credential) => credential.role === role)?.seed ?? '';
    const lines = [`# NATS identity of the ${role} role (issue 18). Secret: never commit, never log.`, `NATS_NKEY_SEED=${seed}`];
    if (WORKER_KEY_HOLDERS.includes(role)) lines.push('# Shared by job-registry and the pipeline workers only.', `SVC_WORKER_KEY=${workerKey}`);
    // The role's permissions above name this installation's subjects and streams: its services must run under it.
    const { installation } = busNames();
    if (installation !== '') lines.push('# The installation these permissions were made for (SVC_INSTALLATION).', `${INSTALLATION_SETTING}=${installation}`);
    if (role === 'operator') lines.push(...layout.operatorLines(authority.certFile));
    const file = join(envDir, `${role}.env`);
    writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    written.push(file);
  }
  if (options.objectStore ?? true) written.push(...writeObjectStoreSecrets(envDir));
  return [authority.certFile, ...issued.map(({ certFile }) => certFile), ...written];
}
