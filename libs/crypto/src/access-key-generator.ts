import { randomBytes, randomInt } from 'node:crypto';

const ID_PREFIX = 'SVC';
const ID_RANDOM_LENGTH = 17;
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SECRET_BYTES = 30;

/** `SVC` followed by 17 upper-case letters or digits, 20 characters like an AWS access key id. */
export function generateAccessKeyId(): string {
  let id = ID_PREFIX;
  // randomInt draws without modulo bias.
  for (let i = 0; i < ID_RANDOM_LENGTH; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** 240 random bits as 40 base64url characters. */
export function generateSecretKey(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}
