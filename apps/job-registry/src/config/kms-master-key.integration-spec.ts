import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KMSClient } from '@aws-sdk/client-kms';
import { ConfigError } from '@svc/config';
import { KMS_CIPHERTEXT_SETTING, KMS_PREVIOUS_CIPHERTEXTS_SETTING, withMasterKeyFromKms } from './kms-master-key';

/**
 * A double of AWS KMS's Decrypt as its API reference documents it (https://docs.aws.amazon.com/kms/latest/APIReference/API_Decrypt,
 * and "Common Parameters"/"Making API requests": the AWS JSON 1.1 protocol): POST / with `X-Amz-Target:
 * TrentService.Decrypt`, `Content-Type: application/x-amz-json-1.1`, a SigV4 `Authorization` for service `kms`, and the
 * body `{"CiphertextBlob": <base64>}`; it answers `{"KeyId", "Plaintext": <base64>, "EncryptionAlgorithm"}`, or HTTP 400
 * `{"__type": "InvalidCiphertextException", "message"}` for a ciphertext it did not make (the error the reference lists
 * for that case). It decrypts only the blobs it was given, and records what it was asked.
 */
class KmsDouble {
  private server: Server | undefined;
  readonly calls: { target: string | undefined; authorization: string | undefined }[] = [];

  constructor(private readonly blobs: Map<string, Buffer>) {}

  async start(): Promise<string> {
    const server = createServer((request, response) => void this.answer(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const target = request.headers['x-amz-target'] as string | undefined;
    this.calls.push({ target, authorization: request.headers.authorization });
    const reply = (status: number, body: object): void => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'POST' || target !== 'TrentService.Decrypt' || !String(request.headers['content-type']).startsWith('application/x-amz-json-1.1')) {
      return reply(400, { __type: 'UnknownOperationException', message: 'not a Decrypt call' });
    }
    const { CiphertextBlob: blob } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { CiphertextBlob?: string };
    const plaintext = blob === undefined ? undefined : this.blobs.get(blob);
    if (plaintext === undefined) return reply(400, { __type: 'InvalidCiphertextException', message: 'The ciphertext is invalid.' });
    return reply(200, { KeyId: 'arn:aws:kms:us-east-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab', Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
  }
}

describe('the master key from KMS (envelope encryption, issue 40 item 4)', () => {
  const dataKey = randomBytes(32);
  const ciphertext = randomBytes(184).toString('base64');
  const shortCiphertext = randomBytes(100).toString('base64');
  const previousKey = randomBytes(32);
  const previousCiphertext = randomBytes(184).toString('base64');
  const kms = new KmsDouble(
    new Map([
      [ciphertext, dataKey],
      [previousCiphertext, previousKey],
      [shortCiphertext, randomBytes(16)],
    ]),
  );
  let client: KMSClient;

  beforeAll(async () => {
    const endpoint = await kms.start();
    client = new KMSClient({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'AKIAKMSDOUBLE', secretAccessKey: 'kms-double-secret' } });
  });

  afterAll(async () => {
    client?.destroy();
    await kms.stop();
  });

  const refusal = async (environment: Record<string, string>): Promise<string[]> => {
    const error = await withMasterKeyFromKms(environment, client).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  };

  it('runs with the data key KMS decrypted as SVC_MASTER_KEY, asking KMS with a signed Decrypt', async () => {
    const environment = await withMasterKeyFromKms({ [KMS_CIPHERTEXT_SETTING]: ciphertext, SVC_REGION: 'us-east-1' }, client);
    expect(environment['SVC_MASTER_KEY']).toBe(dataKey.toString('hex'));
    expect(kms.calls.at(-1)).toEqual({ target: 'TrentService.Decrypt', authorization: expect.stringMatching(/^AWS4-HMAC-SHA256 Credential=AKIAKMSDOUBLE\/\d{8}\/us-east-1\/kms\/aws4_request/) as unknown });
  });

  it('leaves the environment alone without the setting', async () => {
    const environment = { SVC_MASTER_KEY: 'a'.repeat(64) };
    expect(await withMasterKeyFromKms(environment, client)).toBe(environment);
  });

  it('refuses a ciphertext KMS does not decrypt, naming the setting and the KMS error, never a key', async () => {
    const problems = await refusal({ [KMS_CIPHERTEXT_SETTING]: randomBytes(184).toString('base64') });
    expect(problems).toEqual([expect.stringMatching(/^SVC_MASTER_KEY_KMS_CIPHERTEXT: KMS did not decrypt it \(InvalidCiphertextException\): the registry's AWS identity must be allowed kms:Decrypt/)]);
  });

  it('refuses a data key that is no AES-256 key, both ways of giving the key, and text that is no base64', async () => {
    expect(await refusal({ [KMS_CIPHERTEXT_SETTING]: shortCiphertext })).toEqual([
      'SVC_MASTER_KEY_KMS_CIPHERTEXT: KMS gave 16 bytes, not the 32 of an AES-256 key (make it with --key-spec AES_256)',
    ]);
    expect(await refusal({ [KMS_CIPHERTEXT_SETTING]: ciphertext, SVC_MASTER_KEY: 'b'.repeat(64) })).toEqual([
      'SVC_MASTER_KEY and SVC_MASTER_KEY_KMS_CIPHERTEXT: set one of them, not both',
    ]);
    expect(await refusal({ [KMS_CIPHERTEXT_SETTING]: 'not base64 at all!' })).toEqual([
      'SVC_MASTER_KEY_KMS_CIPHERTEXT: must be base64 (the CiphertextBlob of aws kms generate-data-key --key-spec AES_256)',
    ]);
  });

  it('opens the earlier keys of a rotation from their ciphertexts too, beside any given in plain (npm run rotate-master-key reads the same)', async () => {
    const plainPrevious = 'c'.repeat(64);
    const environment = await withMasterKeyFromKms(
      { [KMS_CIPHERTEXT_SETTING]: ciphertext, [KMS_PREVIOUS_CIPHERTEXTS_SETTING]: ` ${previousCiphertext} `, SVC_MASTER_KEY_PREVIOUS: plainPrevious },
      client,
    );
    expect(environment['SVC_MASTER_KEY']).toBe(dataKey.toString('hex'));
    expect(environment['SVC_MASTER_KEY_PREVIOUS']).toBe(`${plainPrevious},${previousKey.toString('hex')}`);
    expect(await refusal({ [KMS_PREVIOUS_CIPHERTEXTS_SETTING]: `${previousCiphertext},${randomBytes(184).toString('base64')}` })).toEqual([
      expect.stringMatching(/^SVC_MASTER_KEY_PREVIOUS_KMS_CIPHERTEXT \(ciphertext 2\): KMS did not decrypt it \(InvalidCiphertextException\)/),
    ]);
  });
});
