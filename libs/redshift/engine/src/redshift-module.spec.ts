import { Portable } from '@svc/contracts';
import { PORTABLE_TYPE_SAMPLES } from '@svc/engines';
import { redshiftColumnType } from '@svc/redshift/warehouse';
import { redshiftModule } from './redshift-module';

describe('redshiftModule.types: the type table of the Redshift warehouse', () => {
  const declares = redshiftModule.types.declares;

  it('declares what the warehouse creates, with what is lost', () => {
    expect(declares?.(Portable.varchar(40))).toEqual({ type: 'VARCHAR(160)', lost: null });
    expect(declares?.(Portable.timestamp(7, true))).toEqual({
      type: 'TIMESTAMPTZ',
      lost: 'stored in UTC with microseconds: the original offset is not kept; fractional seconds past the 6th digit are rounded (Redshift keeps microseconds)',
    });
  });

  it('is redshiftColumnType for every sample portable type', () => {
    for (const type of PORTABLE_TYPE_SAMPLES) {
      const { type: declared, lost } = redshiftColumnType(type);
      expect(declares?.(type)).toEqual({ type: declared, lost });
    }
  });

  it('reads no source types: Redshift is a warehouse only', () => {
    expect(redshiftModule.types.reads).toBeUndefined();
  });
});
