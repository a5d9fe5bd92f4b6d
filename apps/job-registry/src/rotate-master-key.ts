import { withMasterKeyFromKms } from './config/kms-master-key';
import { readKeyRotationConfig } from './config/master-keys';
import { rotateMasterKey } from './store/key-rotation';

// `npm run rotate-master-key`: reads DATABASE_URL, SVC_MASTER_KEY and SVC_MASTER_KEY_PREVIOUS, or their KMS ciphertexts
// (README, "Secrets at rest and key rotation").
async function main(): Promise<void> {
  const lines = await rotateMasterKey(readKeyRotationConfig(await withMasterKeyFromKms(process.env)));
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`rotate-master-key failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
