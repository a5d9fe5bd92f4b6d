// Deliberate violation (tools/e2e/src/lint-boundaries.integration-spec.ts): the console takes of our libraries only
// their browser-safe entries at run time; @svc/signing is built on node:crypto.
import { signRequest } from '@svc/signing';
import { SVC4_SCHEME } from '@svc/signing/core';

export const signer = [signRequest, SVC4_SCHEME];
