export { fieldLabel } from './field-label';
export { type ParseResult } from './parse-result';
export { parseOperationRequest, validateMergedConfig } from './parse-operation-request';
export { API_REFERENCE_PATH, renderApiReference } from './reference/render-reference';
