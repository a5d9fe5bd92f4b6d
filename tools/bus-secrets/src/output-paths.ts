import { join } from 'node:path';

/** Where `npm run secrets` writes in a checkout: the folder compose mounts, and compose's own variable file. */
export function secretsOutputs(repoRoot: string): { secretsDir: string; composeEnvFile: string } {
  return { secretsDir: join(repoRoot, 'deploy', 'secrets'), composeEnvFile: join(repoRoot, '.env') };
}
