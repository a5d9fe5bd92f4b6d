import { UnsafeHostError } from './dial-host';
import { warehouseDialEndpointOf, warehouseEndpointOf, warehouseEngineOf } from './warehouse-url';

describe('warehouseEndpointOf: the one warehouse URL grammar (API checks and connections alike)', () => {
  it.each([
    ['examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com:5439', 'redshift', 'examplecluster.abc123xyz789.us-west-2.redshift.amazonaws.com', 5439],
    ['redshift://cluster.example.com', 'redshift', 'cluster.example.com', 5439],
    ['REDSHIFT://cluster.example.com:5440', 'redshift', 'cluster.example.com', 5440],
    ['postgres://127.0.0.1', 'postgres', '127.0.0.1', 5432],
    ['postgresql://db.internal:6432/warehouse?sslmode=require', 'postgres', 'db.internal', 6432],
    ['[::1]:5439', 'redshift', '::1', 5439],
    ['warehouse_db:5439', 'redshift', 'warehouse_db', 5439],
  ])('%s is %s at %s:%d', (url, engine, host, port) => {
    expect(warehouseEndpointOf(url)).toMatchObject({ engine, host, port, hasCredentials: false });
  });

  it.each(['', 'cluster', 'cluster:', ':5439', 'cluster:0', 'cluster:65536', '[zz]:5439', 'mysql://h:3306', 'postgres://', 'postgres://h/%zz', 'user:pw@cluster.example.com:5439'])(
    'refuses %p',
    (url) => {
      expect(warehouseEndpointOf(url)).toBeNull();
      expect(warehouseEngineOf(url)).toBeNull();
    },
  );

  it('reports credentials in a URL form, without keeping them', () => {
    const endpoint = warehouseEndpointOf('postgres://user:secret@h:5432/db');
    expect(endpoint).toMatchObject({ engine: 'postgres', hasCredentials: true });
    expect(JSON.stringify(endpoint)).not.toContain('secret');
    expect(warehouseEndpointOf('redshift://user@h')).toMatchObject({ hasCredentials: true });
  });

  it('keeps query parameters with lower-case names', () => {
    expect([...(warehouseEndpointOf('postgres://h/db?SSLMODE=require')?.params ?? [])]).toEqual([['sslmode', 'require']]);
  });

  it('gives drivers the address of any spelling, and refuses a host no driver may dial (warehouseDialEndpointOf, issue 36)', () => {
    expect(warehouseDialEndpointOf('redshift://0x7f.1:5439')).toMatchObject({ engine: 'redshift', host: '127.0.0.1', port: 5439 });
    expect(warehouseDialEndpointOf('[::ffff:169.254.169.254]:5439')).toMatchObject({ host: '::ffff:a9fe:a9fe' });
    expect(warehouseDialEndpointOf('mysql://h:1')).toBeNull();
    expect(() => warehouseDialEndpointOf('postgres://%2Ftmp:5432')).toThrow(UnsafeHostError);
    expect(() => warehouseDialEndpointOf('postgres://h:5432?host=%2Ftmp')).toThrow(UnsafeHostError);
  });
});
