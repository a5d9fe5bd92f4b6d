export { contentTypeOf, foreignCharsetOf, MAX_BODY_BYTES, wireFormatOf, type WireFormat } from './wire-format';
export { type DecodeResult } from './decode-result';
export { decodeRequest } from './decode-request';
export { encodeError, encodeRequest, encodeResponse, type EncodedBody } from './encode';
export { type DifferingKeyOnWire, type KeyColumnOnWire, type TableValidationOnWire, type ValidationDescriptionOnWire } from './validation-wire';
