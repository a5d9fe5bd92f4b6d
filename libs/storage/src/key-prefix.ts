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
