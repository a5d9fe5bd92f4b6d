import type { Credentials } from '../signing/signer.js';

export interface StoredSession extends Credentials {
  region: string;
}

const KEY = 'svc-console-session';

/** The signed-in key, in sessionStorage only: it ends with the tab and is never sent anywhere but into signatures. */
export class SessionStore {
  constructor(private readonly storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>) {}

  load(): StoredSession | null {
    const text = this.storage.getItem(KEY);
    if (text === null) return null;
    try {
      const parsed = JSON.parse(text) as Partial<StoredSession>;
      if (typeof parsed.accessKeyId === 'string' && typeof parsed.secretKey === 'string' && typeof parsed.region === 'string') {
        return { accessKeyId: parsed.accessKeyId, secretKey: parsed.secretKey, region: parsed.region };
      }
    } catch {
      // a damaged entry is dropped below
    }
    this.clear();
    return null;
  }

  save(session: StoredSession): void {
    this.storage.setItem(KEY, JSON.stringify(session));
  }

  clear(): void {
    this.storage.removeItem(KEY);
  }
}
