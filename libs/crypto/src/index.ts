export { generateAccessKeyId, generateSecretKey } from './access-key-generator';
export { MASTER_KEY_BYTES, MasterKeyError, parseMasterKey } from './master-key';
export { SecretBox, SecretBoxError, masterKeyId, type SecretLocation } from './secret-box';
export { PROOF_MAX_SKEW_MS, RuntimeConfigSeal, RuntimeConfigSealError, type RuntimeConfigProof } from './runtime-config-seal';
export { ExternalIdIssuer, type ExternalIdBinding } from './external-id';
export { CertificateAuthority, type CertificateRequest, type IssuedCertificate } from './certificate-authority';
