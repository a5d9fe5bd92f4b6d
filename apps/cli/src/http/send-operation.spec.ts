import { operationUrl } from './send-operation';

describe('operationUrl', () => {
  it('appends /api/<Operation> to the endpoint, keeping a path prefix and dropping query and fragment', () => {
    expect(operationUrl('http://127.0.0.1:8080', 'ListWarehouseReplications').href).toBe('http://127.0.0.1:8080/api/ListWarehouseReplications');
    expect(operationUrl('https://gw.example/svc/', 'StartReplication').href).toBe('https://gw.example/svc/api/StartReplication');
    expect(operationUrl('http://[::1]:9000/x?y=1#z', 'AlterConfiguration').href).toBe('http://[::1]:9000/x/api/AlterConfiguration');
  });
});
