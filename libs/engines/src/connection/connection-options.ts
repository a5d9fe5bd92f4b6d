export interface ConnectOptions {
  /** EncryptDataInTransit of the request. */
  encrypt: boolean;
  connectTimeoutMs: number;
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
}
