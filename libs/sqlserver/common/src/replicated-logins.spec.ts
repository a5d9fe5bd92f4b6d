import { ADD_ROLE_MEMBER_SQL, CREATE_CONTAINED_USER_SQL, CREATE_LOGIN_SQL, CREATE_USER_SQL, SOURCE_SEES_USERS_SQL, SOURCE_SQL_USERS_SQL, randomPassword, sqlUsersOf } from './replicated-logins';

describe('replicated logins', () => {
  it('reads SQL users and creates them on staging only when missing, names and password through QUOTENAME (reviewed T-SQL)', () => {
    expect([SOURCE_SQL_USERS_SQL, SOURCE_SEES_USERS_SQL, CREATE_LOGIN_SQL, CREATE_USER_SQL, CREATE_CONTAINED_USER_SQL, ADD_ROLE_MEMBER_SQL].join(';\n\n')).toMatchSnapshot();
  });

  it('gathers each user with its fixed roles', () => {
    expect(
      sqlUsersOf([
        { user_name: 'app', login_name: 'app_login', default_schema_name: 'dbo', role_name: 'db_datareader' },
        { user_name: 'app', login_name: 'app_login', default_schema_name: 'dbo', role_name: 'db_datawriter' },
        { user_name: 'report', login_name: 'report', default_schema_name: null, role_name: null },
      ]),
    ).toEqual([
      { user: 'app', login: 'app_login', defaultSchema: 'dbo', roles: ['db_datareader', 'db_datawriter'] },
      { user: 'report', login: 'report', defaultSchema: null, roles: [] },
    ]);
  });

  it('makes passwords the password policy accepts, each different', () => {
    const passwords = Array.from({ length: 200 }, randomPassword);
    for (const password of passwords) {
      expect(password).toHaveLength(32);
      expect(password).toMatch(/[A-Z]/);
      expect(password).toMatch(/[a-z]/);
      expect(password).toMatch(/[0-9]/);
      expect(password).toMatch(/[!#%*+\-=?@^_]/);
      expect(password).not.toMatch(/[;'"{}\s]/);
    }
    expect(new Set(passwords).size).toBe(passwords.length);
  });
});
