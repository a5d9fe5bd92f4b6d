import type { DialPolicy } from './dial-guard';

export interface ConnectOptions {
  /** EncryptDataInTransit of the request. */
  encrypt: boolean;
  connectTimeoutMs: number;
  /** What every connect of the driver may reach (dial-guard.ts); DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
}

/** What the warehouse connection is made of (the Warehouse group of the request). */
export interface WarehouseConnection {
  url: string;
  databaseName: string;
  username: string;
  password: string;
}

/** A connectivity probe or table listing: EncryptDataInTransit, and how long it may take. */
export interface ProbeOptions {
  encrypt: boolean;
  timeoutMs: number;
  /** The registry's dial policy: its ALLOW_LOOPBACK_TARGETS, and the answers its host policy checked; DEFAULT_DIAL_POLICY when absent. */
  dial?: DialPolicy;
}
