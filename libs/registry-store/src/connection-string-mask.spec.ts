import { maskConnectionString } from './connection-string-mask';

describe('maskConnectionString', () => {
  it.each([
    ['postgres://u:hunter2@h/db', 'postgres://u:********@h/db'],
    ['postgresql://svc:p%40ss@db.internal:5432/app?sslmode=require', 'postgresql://svc:********@db.internal:5432/app?sslmode=require'],
    ['postgres://u:pa@ss@h/db', 'postgres://u:********@h/db'],
    ['postgres://u:pa/ss@h/db', 'postgres://u:********@h/db'],
    ['postgres://u@h/db', 'postgres://u@h/db'],
    ['postgres://h:5432/db', 'postgres://h:5432/db'],
    ['postgres://h/db?user=u&password=hunter2&sslmode=disable', 'postgres://h/db?user=u&password=********&sslmode=disable'],
    ['mssql://sa:Str0ng!@sql:1433/app', 'mssql://sa:********@sql:1433/app'],
    ['Server=db;Database=app;User Id=sa;Password=hunter2;Encrypt=true', 'Server=db;Database=app;User Id=sa;Password=********;Encrypt=true'],
    ['Server=db;Database=app;User Id=sa;Password=hunter2', 'Server=db;Database=app;User Id=sa;Password=********'],
    ['Data Source=db;PWD="a;b""c";Initial Catalog=app', 'Data Source=db;PWD=********;Initial Catalog=app'],
    ["Server=db; password = 'x;y' ;Database=app", 'Server=db; password =********;Database=app'],
    ['Server=db;Database=app;Integrated Security=true', 'Server=db;Database=app;Integrated Security=true'],
  ])('masks %s', (input, expected) => {
    expect(maskConnectionString(input)).toBe(expected);
  });

  it('hides the rest of the text when a quoted password is never closed', () => {
    expect(maskConnectionString('Server=db;Password="abc;Database=app')).toBe('Server=db;Password=********');
  });
});
