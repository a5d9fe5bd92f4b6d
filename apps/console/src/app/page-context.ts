import type { ApiClient } from '../api/api-client.js';
import type { Permissions } from '../api/permissions.js';
import type { Route } from './routes.js';

/** What every page gets: the signed client, what the key may do, navigation and a clock. */
export interface PageContext {
  client: ApiClient;
  permissions: Permissions;
  navigate(route: Route): void;
  now(): Date;
}

/** A page on screen; `dispose` stops its polling when another page replaces it. */
export interface Page {
  dispose(): void;
}
