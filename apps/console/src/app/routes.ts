/** Hash routes of the console: the page is one document, the hash says what it shows. */
export type Route =
  | { page: 'list' }
  | { page: 'create' }
  | { page: 'detail'; replicationId: string }
  | { page: 'table'; replicationId: string; tableName: string }
  | { page: 'alter'; replicationId: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter((part) => part !== '').map(safeDecode);
  if (parts[0] === 'create' && parts.length === 1) return { page: 'create' };
  if (parts[0] === 'replications' && parts[1] !== undefined) {
    const replicationId = parts[1];
    if (parts.length === 2) return { page: 'detail', replicationId };
    if (parts[2] === 'alter' && parts.length === 3) return { page: 'alter', replicationId };
    if (parts[2] === 'tables' && parts[3] !== undefined && parts.length === 4) return { page: 'table', replicationId, tableName: parts[3] };
  }
  return { page: 'list' };
}

export function routeHash(route: Route): string {
  switch (route.page) {
    case 'list':
      return '#/';
    case 'create':
      return '#/create';
    case 'detail':
      return `#/replications/${encodeURIComponent(route.replicationId)}`;
    case 'alter':
      return `#/replications/${encodeURIComponent(route.replicationId)}/alter`;
    case 'table':
      return `#/replications/${encodeURIComponent(route.replicationId)}/tables/${encodeURIComponent(route.tableName)}`;
  }
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
