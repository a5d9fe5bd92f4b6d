import { fieldLabel } from './field-label';

describe('fieldLabel', () => {
  it.each([
    [['warehouse', 'bucketName'], '{Warehouse\\BucketName}'],
    [['tablesToInclude'], '{TablesToInclude}'],
    [['reseedingSchedule', 'repeatIntervalInMinutes'], '{ReseedingSchedule\\RepeatIntervalInMinutes}'],
    [['ctProcessTimeoutInMinutes'], '{CtProcessTimeoutInMinutes}'],
    [['Foo'], '{Foo}'],
    [['bad\nname'], '{Bad?name}'],
    [['x'.repeat(70)], `{X${'x'.repeat(63)}…}`],
  ])('%j → %s', (path, label) => {
    expect(fieldLabel(path)).toBe(label);
  });
});
