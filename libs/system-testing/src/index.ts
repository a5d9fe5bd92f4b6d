export { ServiceProcess } from './service-process';
export { callSigned, send, signedHeaders, type ApiResponse, type SignOptions } from './signed-client';
export { ADMIN_KEY, TestStack, type TestStackOptions } from './test-stack';
