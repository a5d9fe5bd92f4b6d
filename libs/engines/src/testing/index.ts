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
