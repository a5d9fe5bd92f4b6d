import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENGINES } from './engine-list';
import { TYPES_DOCUMENT_PATH, renderTypesDocument } from './types-document';

const committedPath = join(__dirname, '..', '..', '..', TYPES_DOCUMENT_PATH);

describe('docs/TYPES.md', () => {
  it('is what the engines\' type mappings render (run npm run docs:types after changing one)', () => {
    const rendered = renderTypesDocument();
    const committed = readFileSync(committedPath, 'utf8');
    if (committed !== rendered) throw new Error(`${TYPES_DOCUMENT_PATH} differs from the engines' mappings: run npm run docs:types`);
    expect(committed).toBe(rendered);
  });

  it.each(ENGINES.map((engine) => [engine.name, engine] as const))('has a table for each role %s reads or declares types in', (_name, engine) => {
    const document = renderTypesDocument([engine]);
    expect(document.includes(`## ${engine.displayName} as a source`)).toBe((engine.roles as readonly string[]).includes('source'));
    expect(document.includes(`## ${engine.displayName} as a warehouse`)).toBe((engine.roles as readonly string[]).includes('warehouse'));
  });
});
