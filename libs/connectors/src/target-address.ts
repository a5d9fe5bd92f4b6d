import { warehouseEndpointOf } from '@svc/engines';
import { databaseAccessOf } from './engine';
import { endpointOfIdentity } from './target-policy';

/** `host:port` (`[v6]:port`) of what a connection string connects to, as its engine reads it; undefined when unparsable. */
export function databaseAddressOf(connectionString: string): string | undefined {
  const identity = databaseAccessOf(connectionString)?.databaseIdentity(connectionString);
  const endpoint = identity ? endpointOfIdentity(identity) : null;
  return endpoint ? hostPort(endpoint.host, endpoint.port) : undefined;
}

/** `host:port` of a Warehouse.Url; undefined when unparsable. */
export function warehouseAddressOf(url: string): string | undefined {
  const endpoint = warehouseEndpointOf(url);
  return endpoint ? hostPort(endpoint.host, endpoint.port) : undefined;
}

function hostPort(host: string, port: number): string {
  const shown = host.includes(':') ? `[${host}]` : host;
  return port > 0 ? `${shown}:${port}` : shown;
}
