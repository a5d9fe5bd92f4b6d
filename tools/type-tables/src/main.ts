import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TYPES_DOCUMENT_PATH, renderTypesDocument } from '@svc/engine-list';

/** `npm run docs:types` writes docs/TYPES.md from the engines' type mappings. Runs from dist/tools/type-tables/src. */
const repositoryRoot = join(__dirname, '..', '..', '..', '..');
writeFileSync(join(repositoryRoot, TYPES_DOCUMENT_PATH), renderTypesDocument());
process.stdout.write(`wrote ${TYPES_DOCUMENT_PATH}\n`);
