import { unlessUnparsable, warehouseDialEndpointOf } from '@svc/engines';
import { databaseAccessOf } from './engine';

/** `host:port` (`[v6]:port`) of what a connection string connects to, as its engine's driver dials it; undefined when unparsable. */
export function databaseAddressOf(connectionString: string): string | undefined {
  const endpoint = unlessUnparsable(() => databaseAccessOf(connectionString)?.endpoint(connectionString));
  return endpoint ? hostPort(endpoint.host, endpoint.port ?? 0) : undefined;
}

/** `host:port` of a Warehouse.Url; undefined when unparsable. */
export function warehouseAddressOf(url: string): string | undefined {
  const endpoint = unlessUnparsable(() => warehouseDialEndpointOf(url));
  return endpoint ? hostPort(endpoint.host, endpoint.port) : undefined;
}

function hostPort(host: string, port: number): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return port > 0 ? `${shown}:${port}` : shown;
}
