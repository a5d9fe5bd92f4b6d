export { readRegistryConfig, type BootstrapAccessKey, type RegistryConfig } from './config/registry-config';
export { REGISTRY_QUEUE_GROUP, createRegistryApp, type RegistryAppOptions } from './registry-app';
export type { ReachabilityProbe, ReachabilityTarget } from './replications/reachability-probe';
