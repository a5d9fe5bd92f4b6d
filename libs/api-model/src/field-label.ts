/**
 * How a field is named in messages (DESIGN §4): `{Group\Field}` with PascalCase names for both wire formats,
 * `{Field}` for a top-level field. `['warehouse', 'bucketName']` → `{Warehouse\BucketName}`.
 */
export function fieldLabel(path: readonly string[]): string {
  return `{${path.map(pascalSegment).join('\\')}}`;
}

const MAX_SEGMENT_LENGTH = 64;

function pascalSegment(segment: string): string {
  // Unknown field names come from the caller: keep them to one short line.
  const printable = segment.replace(/[\p{Cc}\p{Cf}]/gu, '?');
  const short = printable.length > MAX_SEGMENT_LENGTH ? `${printable.slice(0, MAX_SEGMENT_LENGTH)}…` : printable;
  return short.charAt(0).toUpperCase() + short.slice(1);
}
