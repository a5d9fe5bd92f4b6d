export { generateAccessKeyId, generateSecretKey } from './access-key-generator';
export { MasterKeyError, parseMasterKey } from './master-key';
export { SecretBox, SecretBoxError } from './secret-box';
