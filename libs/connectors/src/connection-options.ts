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
