import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_REFERENCE_PATH, renderApiReference } from '@svc/api-model';
import { referenceHtml } from './reference-html';

/**
 * `npm run api-reference` writes docs/API.md from the request model; `--html <file>` (run by `npm run build`)
 * writes the page the gateway serves at /console/api-reference.html instead. Runs from dist/tools/api-reference/src.
 */
const repositoryRoot = join(__dirname, '..', '..', '..', '..');
const [option, htmlFile] = process.argv.slice(2);
if (option === '--html' && htmlFile !== undefined) {
  writeFileSync(join(repositoryRoot, htmlFile), referenceHtml(renderApiReference()));
} else {
  writeFileSync(join(repositoryRoot, API_REFERENCE_PATH), renderApiReference());
  process.stdout.write(`wrote ${API_REFERENCE_PATH}\n`);
}
