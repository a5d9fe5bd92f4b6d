import { defineEngine, warehouseEngineOf } from '@svc/engines';
import { redshiftColumnType } from '@svc/redshift/warehouse';
import { redshiftEngine } from './redshift-engine';

/** Redshift, as the engine list names it: the warehouse only. */
export const redshiftModule = defineEngine({
  name: 'redshift',
  displayName: redshiftEngine.displayName,
  roles: ['warehouse'],
  connectionStringForms: [],
  databaseAccess: null,
  recognizesWarehouseUrl: (url) => warehouseEngineOf(url) === 'redshift',
  // COPY names the bucket's keys (AccessType=AccessKey) in its text, and Redshift reads the files with them.
  warehouseServerReceives: ['password', 'secretKey'],
  pipeline: redshiftEngine,
  defaultSchema: 'public',
  types: {
    declares: (type) => {
      const { type: declared, lost } = redshiftColumnType(type);
      return { type: declared, lost };
    },
  },
});
