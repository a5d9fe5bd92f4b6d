import { JsonLogger } from '@svc/logging';
import { readRegistryConfig } from './config/registry-config';
import { createRegistryApp } from './registry-app';

async function main(): Promise<void> {
  const config = readRegistryConfig(process.env);
  const app = await createRegistryApp(config);
  app.enableShutdownHooks();
}

main().catch((error: unknown) => {
  new JsonLogger('job-registry').error('job-registry failed to start', { error });
  process.exit(1);
});
