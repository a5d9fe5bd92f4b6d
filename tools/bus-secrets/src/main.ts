import { resolve } from 'node:path';
import { writeBusSecrets } from './bus-secrets';

const USAGE = `usage: npm run secrets -- [--out DIR] [--gateway-host NAME]...
Makes deploy/secrets (or DIR) once, for docker-compose.yml: a private CA, TLS certificates for NATS and the
api-gateway, an nkey per service role with its NATS permissions, and the worker key. Refuses to overwrite.`;

function main(argv: string[]): number {
  let dir = resolve(__dirname, '..', '..', '..', '..', 'deploy', 'secrets');
  const gatewayHosts: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    const value = argv[index + 1];
    if ((flag === '--out' || flag === '--gateway-host') && value !== undefined && !value.startsWith('--')) {
      if (flag === '--out') dir = resolve(value);
      else gatewayHosts.push(value);
      index += 1;
    } else {
      process.stderr.write(`${flag === '--help' ? '' : `unknown or incomplete argument: ${flag ?? ''}\n`}${USAGE}\n`);
      return flag === '--help' ? 0 : 64;
    }
  }
  const written = writeBusSecrets({ dir, natsNodes: ['nats-1', 'nats-2', 'nats-3'], gatewayHosts });
  process.stdout.write(
    [
      `Wrote ${written.length} files under ${dir} (keep this folder secret; it is git-ignored).`,
      `The api-gateway's certificate is signed by ${dir}/certs/ca.pem: give that file to clients (svc --ca-file, SVC_CA_FILE).`,
      'Now: docker compose up -d --build',
      '',
    ].join('\n'),
  );
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
