import type { TableRef } from '@svc/contracts';

/** BucketFolderName as a key prefix: no leading/trailing slashes, no empty segments ('' for the bucket root). */
export function folderKey(bucketFolderName: string): string {
  return bucketFolderName
    .trim()
    .split('/')
    .filter((segment) => segment !== '')
    .join('/');
}

/** Key prefix `<BucketFolderName without leading/trailing slashes>/<replicationId>/` (DESIGN §6). */
export function replicationPrefix(bucketFolderName: string, replicationId: string): string {
  return joinKey(folderKey(bucketFolderName), `${replicationId}/`);
}

/** `folder/name`, or `name` when the folder is the bucket root. */
export function joinKey(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

/**
 * `<folder>/<replicationId>/<schema>.<table>/<batchId>/`: where one batch's parts and manifest go (DESIGN §6).
 * A '/' inside a name would add a folder level, so it is written `%2F` (and '%' itself `%25`).
 */
export function batchKeyPrefix(bucketFolderName: string, replicationId: string, table: TableRef, batchId: string): string {
  const tableFolder = keySegment(`${table.schema}.${table.name}`);
  return `${replicationPrefix(bucketFolderName, replicationId)}${tableFolder}/${keySegment(batchId)}/`;
}

function keySegment(name: string): string {
  return name.replace(/%/g, '%25').replace(/\//g, '%2F');
}
