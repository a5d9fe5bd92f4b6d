import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_REFERENCE_PATH, renderApiReference } from '@svc/api-model';

/** Writes docs/API.md from the request model (this file runs from dist/tools/api-reference/src). */
const target = join(__dirname, '..', '..', '..', '..', API_REFERENCE_PATH);
writeFileSync(target, renderApiReference());
process.stdout.write(`wrote ${API_REFERENCE_PATH}\n`);
