import { splitFieldErrors } from './field-errors.js';

describe('field errors', () => {
  const known = new Set(['Warehouse\\BucketName', 'Warehouse\\AccessType', 'TablesToInclude', 'ReseedingSchedule\\FromTime']);

  it('puts each {Group\\Field} message beside its field and the rest at the top', () => {
    const errors = splitFieldErrors(
      [
        "{Warehouse\\BucketName}: invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'",
        '{TablesToInclude}: [public].[nope] does not exist in the source',
        '{ReseedingSchedule}: every member is required',
        '{Unknown\\Thing}: unknown field',
        'the request must be a group of fields',
      ],
      known,
    );
    expect(errors.byField.get('Warehouse\\BucketName')).toEqual(["invalid value 'x y'. A bucket name is 3-63 characters of a-z, 0-9, '.', '-'"]);
    expect(errors.byField.get('TablesToInclude')).toEqual(['[public].[nope] does not exist in the source']);
    expect(errors.byField.get('ReseedingSchedule\\FromTime')).toEqual(['{ReseedingSchedule}: every member is required']);
    expect(errors.general).toEqual(['{Unknown\\Thing}: unknown field', 'the request must be a group of fields']);
  });
});
