import { SERVER_MAJOR_VERSION_SQL, SOURCE_COMPATIBILITY_LEVEL_SQL, compatibilityLevelProblem, compatibilityLevelsOf, setCompatibilityLevelSql } from './compatibility-level';

describe('ReplicateCompatibilityLevel', () => {
  it("takes the seed's levels on the two generations it names", () => {
    expect(compatibilityLevelsOf(12)).toEqual([100, 110, 120]);
    expect(compatibilityLevelsOf(13)).toEqual([100, 110, 120, 130]);
  });

  it('takes what newer servers support, and a level per version beyond the known ones', () => {
    expect(compatibilityLevelsOf(15)).toContain(150);
    expect(compatibilityLevelsOf(17)).toEqual([100, 110, 120, 130, 140, 150, 160, 170]);
    expect(compatibilityLevelsOf(9)).toEqual([]);
  });

  it('accepts a level the staging server takes', () => {
    expect(compatibilityLevelProblem(120, 13)).toBeNull();
    expect(compatibilityLevelProblem(150, 15)).toBeNull();
  });

  it('explains a level the staging server cannot take, naming the server and the way out', () => {
    expect(compatibilityLevelProblem(130, 12)).toBe(
      "the source database's compatibility level 130 cannot be set on the staging server (SQL Server 2014 takes 100, 110, 120); upgrade the staging server or set ReplicateCompatibilityLevel to false",
    );
    expect(compatibilityLevelProblem(100, 9)).toContain('SQL Server version 9 is not a version the service knows');
  });

  it('sets only a real level (it is spliced into T-SQL)', () => {
    expect(setCompatibilityLevelSql(130)).toBe('ALTER DATABASE CURRENT SET COMPATIBILITY_LEVEL = 130');
    expect(setCompatibilityLevelSql(170)).toBe('ALTER DATABASE CURRENT SET COMPATIBILITY_LEVEL = 170');
    for (const level of [125, -100, 1.5, Number.NaN, 10000]) expect(() => setCompatibilityLevelSql(level)).toThrow(RangeError);
  });

  it('reads the levels with statements every SQL Server version has', () => {
    expect([SOURCE_COMPATIBILITY_LEVEL_SQL, SERVER_MAJOR_VERSION_SQL].join(';\n')).toMatchSnapshot();
  });
});
