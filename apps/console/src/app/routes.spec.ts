import { parseRoute, routeHash, type Route } from './routes.js';

describe('hash routes', () => {
  it.each<Route>([
    { page: 'list' },
    { page: 'create' },
    { page: 'detail', replicationId: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' },
    { page: 'alter', replicationId: 'r' },
    { page: 'table', replicationId: 'r', tableName: '[public].[<img src=x onerror=alert(1)>/#?]' },
  ])('round-trips %p', (route) => expect(parseRoute(routeHash(route))).toEqual(route));

  it('shows the list for anything else', () => {
    expect(parseRoute('')).toEqual({ page: 'list' });
    expect(parseRoute('#/nowhere/at/all')).toEqual({ page: 'list' });
    expect(parseRoute('#/replications/%E0%A4%A')).toEqual({ page: 'detail', replicationId: '%E0%A4%A' });
  });
});
