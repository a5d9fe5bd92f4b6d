export {
  startPipelineServiceHarness,
  type HarnessWorkerEnvironment,
  type PipelineServiceHarness,
  type PipelineServiceHarnessOptions,
  type RunningService,
} from './pipeline-service-harness';
export { serveRuntimeConfigs } from './runtime-configs';
export { ServiceProcess } from './service-process';
export { callSigned, send, signedHeaders, type ApiResponse, type SignOptions, type TransportOptions } from './signed-client';
export { createTestCertificateAuthority, type IssuedCertificate, type TestCertificateAuthority } from './test-certificates';
export { ADMIN_KEY, TEST_METRICS_TOKEN, TestStack, type TestStackOptions } from './test-stack';
export { measureGatewayUnderLoad, type GatewayLoadOptions, type GatewayLoadResult } from './gateway-load';
export { jsonDeepArrays, jsonHugeString, jsonManyKeys, xmlManyElements, type HostileBody } from './hostile-bodies';
export { isSecuredTestNats, startSecureTestNats, startSecureTestNatsCluster, type SecureBus, type SecuredTestNats } from './secure-nats';
