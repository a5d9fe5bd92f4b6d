import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { ConfigError, DEFAULT_REGION, EnvReader } from '@svc/config';
import { MASTER_KEY_BYTES } from '@svc/crypto';

export const KMS_CIPHERTEXT_SETTING = 'SVC_MASTER_KEY_KMS_CIPHERTEXT';
/** Earlier master keys during a rotation, as KMS ciphertexts (comma-separated): opened and added to SVC_MASTER_KEY_PREVIOUS. */
export const KMS_PREVIOUS_CIPHERTEXTS_SETTING = 'SVC_MASTER_KEY_PREVIOUS_KMS_CIPHERTEXT';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The slice of the KMS client used: one Decrypt. */
export type KmsDecrypt = Pick<KMSClient, 'send'>;

/**
 * Envelope encryption of the master key: SVC_MASTER_KEY_KMS_CIPHERTEXT holds the master key encrypted by a KMS key
 * (the CiphertextBlob of `aws kms generate-data-key --key-spec AES_256`, base64), and only KMS can open it: at start
 * the registry (and `npm run rotate-master-key`) asks KMS to decrypt it (its AWS identity needs kms:Decrypt on that key;
 * KMS_ENDPOINT for a VPC endpoint) and runs with the result as SVC_MASTER_KEY, which then never appears in the
 * environment or a file. During a rotation the earlier keys' ciphertexts (SVC_MASTER_KEY_PREVIOUS_KMS_CIPHERTEXT,
 * comma-separated) are opened the same way and added to SVC_MASTER_KEY_PREVIOUS. Without either setting the environment
 * is returned as it is. Refusals name the setting and KMS's error, never a key.
 */
export async function withMasterKeyFromKms(environment: Record<string, string | undefined>, kms?: KmsDecrypt): Promise<Record<string, string | undefined>> {
  const env = new EnvReader(environment);
  const ciphertext = env.optionalString(KMS_CIPHERTEXT_SETTING)?.replace(/\s+/g, '');
  const previous = (env.optionalString(KMS_PREVIOUS_CIPHERTEXTS_SETTING) ?? '')
    .split(',')
    .map((blob) => blob.replace(/\s+/g, ''))
    .filter((blob) => blob !== '');
  if (ciphertext === undefined && previous.length === 0) return environment;
  const endpoint = env.optionalString('KMS_ENDPOINT');
  const region = env.string('SVC_REGION', DEFAULT_REGION);
  if (ciphertext !== undefined && env.optionalString('SVC_MASTER_KEY') !== undefined) env.problem(`SVC_MASTER_KEY and ${KMS_CIPHERTEXT_SETTING}: set one of them, not both`);
  if (ciphertext !== undefined && !BASE64.test(ciphertext)) env.problem(`${KMS_CIPHERTEXT_SETTING}: must be base64 (the CiphertextBlob of aws kms generate-data-key --key-spec AES_256)`);
  if (previous.some((blob) => !BASE64.test(blob))) env.problem(`${KMS_PREVIOUS_CIPHERTEXTS_SETTING}: must be base64 ciphertexts, comma-separated`);
  env.done();

  const client = kms ?? new KMSClient({ region, ...(endpoint !== undefined && { endpoint }) });
  const where = `in ${region}${endpoint !== undefined ? ' at KMS_ENDPOINT' : ''}`;
  const opened = { ...environment };
  if (ciphertext !== undefined) opened['SVC_MASTER_KEY'] = await decryptKey(client, ciphertext, KMS_CIPHERTEXT_SETTING, where);
  if (previous.length > 0) {
    const keys: string[] = [];
    for (const [index, blob] of previous.entries()) keys.push(await decryptKey(client, blob, `${KMS_PREVIOUS_CIPHERTEXTS_SETTING} (ciphertext ${String(index + 1)})`, where));
    const plain = env.optionalString('SVC_MASTER_KEY_PREVIOUS');
    opened['SVC_MASTER_KEY_PREVIOUS'] = [...(plain === undefined ? [] : [plain]), ...keys].join(',');
  }
  return opened;
}

/** One master key KMS opens, as hex; a refusal names `setting` and KMS's error. */
async function decryptKey(client: KmsDecrypt, ciphertext: string, setting: string, where: string): Promise<string> {
  let plaintext: Uint8Array | undefined;
  try {
    plaintext = (await client.send(new DecryptCommand({ CiphertextBlob: Buffer.from(ciphertext, 'base64') }))).Plaintext;
  } catch (error) {
    const name = error instanceof Error ? error.name : 'an unknown error';
    throw new ConfigError([`${setting}: KMS did not decrypt it (${name}): the registry's AWS identity must be allowed kms:Decrypt on the KMS key that encrypted it, ${where}`]);
  }
  if (plaintext === undefined || plaintext.length !== MASTER_KEY_BYTES) {
    throw new ConfigError([`${setting}: KMS gave ${plaintext?.length ?? 0} bytes, not the ${MASTER_KEY_BYTES} of an AES-256 key (make it with --key-spec AES_256)`]);
  }
  return Buffer.from(plaintext).toString('hex');
}
