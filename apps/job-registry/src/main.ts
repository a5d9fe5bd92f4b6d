import { JsonLogger } from '@svc/logging';
import { withMasterKeyFromKms } from './config/kms-master-key';
import { readRegistryConfig } from './config/registry-config';
import { createRegistryApp } from './registry-app';

async function main(): Promise<void> {
  // The master key may come from KMS (envelope encryption): opened before anything else reads the settings.
  const config = readRegistryConfig(await withMasterKeyFromKms(process.env));
  const app = await createRegistryApp(config);
  app.enableShutdownHooks();
}

main().catch((error: unknown) => {
  new JsonLogger('job-registry').error('job-registry failed to start', { error });
  process.exit(1);
});
