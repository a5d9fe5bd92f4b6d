export {
  CONTRACT_REPLICATION_ID,
  PORTABLE_COLUMN_TYPES,
  pipelineCsv,
  type ContractColumnTypes,
  type ContractNaming,
  type Field,
  type Row,
} from './contract-batches';
export { describeStagingContract, type StagingContractCase, type StagingContractEngine, type StagingUnderTest } from './staging-contract';
export { describeWarehouseContract, type WarehouseContractCase, type WarehouseContractEngine, type WarehouseUnderTest } from './warehouse-contract';
/** The engines' default schemas as the engine list collects them (`public`, `dbo`), for specs of one engine, which cannot import the list. */
export const TEST_BARE_NAME_SCHEMAS: ReadonlySet<string> = new Set(['public', 'dbo']);
