import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { MASTER_KEY_BYTES } from './master-key';

/** What a worker sends with its request: it holds the worker key, and asked just now. */
export interface RuntimeConfigProof {
  issuedAt: string;
  nonce: string;
  mac: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const NONCE_BYTES = 16;
/** How far a proof's time may be from the registry's clock. */
export const PROOF_MAX_SKEW_MS = 60_000;

export class RuntimeConfigSealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RuntimeConfigSealError';
  }
}

/**
 * The registry and the pipeline workers share one worker key (SVC_WORKER_KEY); nothing else on the bus holds it.
 * A worker proves it holds the key when it asks for a replication's runtime configuration (an HMAC over the
 * replication id, the time and a fresh nonce), and the registry answers the configuration sealed with AES-256-GCM
 * under a key derived from it, bound to that replication and that request's nonce. Whoever reads the bus — a
 * misconfigured permission, a stolen gateway credential — sees no secret; whoever asks without the key gets nothing.
 */
export class RuntimeConfigSeal {
  private readonly macKey: Buffer;
  private readonly sealKey: Buffer;

  constructor(workerKey: Buffer) {
    if (workerKey.length !== MASTER_KEY_BYTES) throw new RuntimeConfigSealError(`worker key must be ${MASTER_KEY_BYTES} bytes`);
    this.macKey = derive(workerKey, 'svc runtime-config proof v1');
    this.sealKey = derive(workerKey, 'svc runtime-config seal v1');
  }

  prove(replicationId: string, now: Date = new Date()): RuntimeConfigProof {
    const issuedAt = now.toISOString();
    const nonce = randomBytes(NONCE_BYTES).toString('base64url');
    return { issuedAt, nonce, mac: this.mac(replicationId, issuedAt, nonce) };
  }

  /** True when the proof was made with the worker key for this replication, within PROOF_MAX_SKEW_MS of `now`. */
  verify(replicationId: string, proof: unknown, now: Date = new Date()): proof is RuntimeConfigProof {
    if (!isProofShaped(proof)) return false;
    const issuedAt = Date.parse(proof.issuedAt);
    if (!Number.isFinite(issuedAt) || Math.abs(now.getTime() - issuedAt) > PROOF_MAX_SKEW_MS) return false;
    const expected = Buffer.from(this.mac(replicationId, proof.issuedAt, proof.nonce), 'base64url');
    const given = Buffer.from(proof.mac, 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** `iv | tag | ciphertext` in base64, bound to the replication and the request's nonce. */
  seal(plaintext: string, replicationId: string, nonce: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(associatedData(replicationId, nonce));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  /** Throws RuntimeConfigSealError when sealed under another key, for another replication or request, or altered. */
  open(sealed: string, replicationId: string, nonce: string): string {
    const bytes = Buffer.from(sealed, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new RuntimeConfigSealError('sealed runtime configuration is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(associatedData(replicationId, nonce));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new RuntimeConfigSealError('sealed runtime configuration cannot be opened: another worker key (SVC_WORKER_KEY differs between registry and worker), or altered');
    }
  }

  private mac(replicationId: string, issuedAt: string, nonce: string): string {
    return createHmac('sha256', this.macKey).update(`runtime-config\n${replicationId}\n${issuedAt}\n${nonce}`, 'utf8').digest('base64url');
  }
}

function derive(key: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), purpose, 32));
}

function associatedData(replicationId: string, nonce: string): Buffer {
  return Buffer.from(`${replicationId}\n${nonce}`, 'utf8');
}

function isProofShaped(value: unknown): value is RuntimeConfigProof {
  if (typeof value !== 'object' || value === null) return false;
  const { issuedAt, nonce, mac } = value as Record<string, unknown>;
  return typeof issuedAt === 'string' && typeof nonce === 'string' && typeof mac === 'string' && nonce.length <= 64 && mac.length <= 64 && issuedAt.length <= 40;
}
