/**
 * Signing needs SHA-256 and HMAC-SHA256, which node:crypto computes synchronously and a browser's WebCrypto only
 * asynchronously. So that the signing steps are written once for both, each step is a generator that yields the
 * digest it needs and is resumed with the digest's bytes; `runDigests` and `runDigestsAsync` drive it with the
 * caller's own digest functions. Nothing here touches a global: the functions are passed in.
 */
export type DigestCall = { kind: 'sha256'; data: Uint8Array } | { kind: 'hmac-sha256'; key: Uint8Array; data: Uint8Array };

/** A computation that needs digests: it yields each one it needs and returns T. */
export type Digesting<T> = Generator<DigestCall, T, Uint8Array>;

export interface Digests {
  sha256(data: Uint8Array): Uint8Array;
  hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array;
}

export interface AsyncDigests {
  sha256(data: Uint8Array): Promise<Uint8Array>;
  hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array>;
}

export function runDigests<T>(computation: Digesting<T>, digests: Digests): T {
  let step = computation.next();
  while (!step.done) {
    const call = step.value;
    step = computation.next(call.kind === 'sha256' ? digests.sha256(call.data) : digests.hmacSha256(call.key, call.data));
  }
  return step.value;
}

export async function runDigestsAsync<T>(computation: Digesting<T>, digests: AsyncDigests): Promise<T> {
  let step = computation.next();
  while (!step.done) {
    const call = step.value;
    step = computation.next(call.kind === 'sha256' ? await digests.sha256(call.data) : await digests.hmacSha256(call.key, call.data));
  }
  return step.value;
}

/**
 * The WebCrypto calls signing needs (`crypto.subtle` in a browser, `globalThis.crypto.subtle` in Node), stated
 * structurally so that this folder needs neither the DOM's nor Node's types.
 */
export interface SubtleDigests {
  digest(algorithm: 'SHA-256', data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
  importKey(format: 'raw', keyData: Uint8Array<ArrayBuffer>, algorithm: { name: 'HMAC'; hash: 'SHA-256' }, extractable: false, keyUsages: ['sign']): Promise<unknown>;
  sign(algorithm: 'HMAC', key: unknown, data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
}

/** Digests computed by WebCrypto. It takes only buffers of its own, hence the copies. */
export function webCryptoDigests(subtle: SubtleDigests): AsyncDigests {
  return {
    sha256: async (data) => new Uint8Array(await subtle.digest('SHA-256', new Uint8Array(data))),
    hmacSha256: async (key, data) => {
      const cryptoKey = await subtle.importKey('raw', new Uint8Array(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return new Uint8Array(await subtle.sign('HMAC', cryptoKey, new Uint8Array(data)));
    },
  };
}
