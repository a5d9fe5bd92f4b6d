import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { decodeRequest, type WireFormat } from '@svc/api-codec';
import { OPERATIONS } from '@svc/contracts';
import { declaredFields } from '../dto/field-catalogue';
import { parseOperationRequest, REQUEST_MODELS } from '../parse-operation-request';
import { API_REFERENCE_PATH, fieldAnchor, operationReference, renderApiReference } from './render-reference';

const committedPath = join(__dirname, '..', '..', '..', '..', API_REFERENCE_PATH);

describe('the API reference (docs/API.md)', () => {
  const rendered = renderApiReference();

  it('is the one the model renders', () => {
    const committed = readFileSync(committedPath, 'utf8');
    if (committed !== rendered) throw new Error(`${API_REFERENCE_PATH} differs from the model: run npm run api-reference`);
  });

  it.each(OPERATIONS)('%s: lists every property the validator checks, with an anchor', (operation) => {
    const validated = validatedPaths(REQUEST_MODELS[operation]);
    for (const path of validated) expect(rendered).toContain(`id="${fieldAnchor(operation, path)}"`);
    expect(validated.length).toBe(operationReference(operation).fields.length);
    const section = rendered.slice(rendered.indexOf(`## ${operation}\n`), rendered.indexOf(`### ${operation} response`));
    for (const refused of refusedNames(REQUEST_MODELS[operation])) expect(section).toContain(`\`${refused}\`: `);
  });

  it.each(OPERATIONS.flatMap((operation) => (['xml', 'json'] as WireFormat[]).map((format) => [operation, format] as const)))(
    '%s: the %s example is accepted by the decoder and the model',
    (operation, format) => {
      const body = operationReference(operation).examples[format];
      expect(rendered).toContain(body);
      const decoded = decodeRequest(operation, format, Buffer.from(body));
      if (!decoded.ok) throw new Error(decoded.messages.join('\n'));
      const parsed = parseOperationRequest(operation, decoded.tree);
      if (!parsed.ok) throw new Error(parsed.messages.join('\n'));
    },
  );

  it('uses obvious placeholders for the secrets of its examples', () => {
    const create = operationReference('CreateWarehouseReplication').examples.json;
    for (const secret of ['YOUR-SOURCE-PASSWORD', 'YOUR-STAGING-PASSWORD', 'YOUR-AWS-SECRET-ACCESS-KEY', 'YOUR-WAREHOUSE-PASSWORD']) {
      expect(create).toContain(secret);
    }
  });

  it('says each rule in the words of its messages and each default where it is declared', () => {
    const anchorRow = (id: string): string => rendered.split('\n').find((line) => line.includes(`id="${id}"`)) ?? '';
    expect(anchorRow('createwarehousereplication-warehouse-bucketname')).toContain("A bucket name is 3-63 characters of a-z, 0-9, '.', '-'");
    expect(anchorRow('createwarehousereplication-source-changetrackingretentionperiod')).toContain('One of 12 Hours, 1 Day, 2 Days');
    expect(anchorRow('alterwarehousereplication-changetrackingbatchlimit')).toContain('a new replication has 500000');
    expect(anchorRow('alterwarehousereplication-replicationname')).toContain('1-128 printable characters');
    expect(anchorRow('rotateaccesskey-overlapminutes')).toMatch(/A whole number from 0 to 10080 \| 60 \|$/);
    expect(anchorRow('createwarehousereplication-warehouse-secretkey')).toContain('required when AccessType is AccessKey');
  });
});

/**
 * The properties class-validator holds rules for (the ground truth of what the server checks), as paths through
 * the groups; fields a model refuses (NotAllowed) are listed apart and left out here.
 */
function validatedPaths(model: abstract new () => object, prefix: string[] = []): string[][] {
  const refused = new Set(declaredFields(model).filter((entry) => entry.kind === 'notAllowed').map((entry) => entry.name));
  const names = [...new Set(getMetadataStorage().getTargetValidationMetadatas(model, '', true, false).map((metadata) => metadata.propertyName))];
  return names
    .filter((name) => !refused.has(name))
    .flatMap((name) => {
      const path = [...prefix, name];
      const entry = declaredFields(model).find((candidate) => candidate.name === name);
      return entry?.kind === 'group' ? [path, ...validatedPaths(entry.model(), path)] : [path];
    });
}

/** The fields a model (or one of its groups) refuses with a reason, as the reference names them: `Warehouse/TimeoutInMins`. */
function refusedNames(model: abstract new () => object, prefix: string[] = []): string[] {
  return declaredFields(model).flatMap((entry) => {
    const name = [...prefix, entry.name.charAt(0).toUpperCase() + entry.name.slice(1)];
    if (entry.kind === 'notAllowed') return [name.join('/')];
    return entry.kind === 'group' ? refusedNames(entry.model(), name) : [];
  });
}
