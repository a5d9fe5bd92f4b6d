import { ListObjectsV2Command, type S3Client, type _Object } from '@aws-sdk/client-s3';
import { ObjectDeleter } from './delete-objects';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The objects of one batch folder (`<schema>.<table>/<batchId>/` under the replication's prefix). */
interface BatchFolder {
  name: string;
  keys: string[];
  newestMs: number;
}

/**
 * Deletes the batch folders under `prefix` ('<folder>/<replicationId>/') whose objects are all older than
 * `retentionDays`; returns the number of objects deleted. A folder with one object still young is kept
 * whole, so a manifest never outlives its parts. Objects not in a batch folder are left alone.
 *
 * The listing is paged (ListObjectsV2 continuation). Keys come in lexicographic order, so a folder's
 * objects arrive together and only one folder is held in memory; the continuation is key-based, so
 * deleting what was already listed does not disturb it.
 */
export async function deleteExpiredFiles(client: S3Client, bucket: string, prefix: string, retentionDays: number, now = new Date()): Promise<number> {
  if (!Number.isFinite(retentionDays) || retentionDays < 0) throw new RangeError('retentionDays must be a number of days, 0 or more');
  const root = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
  const cutoffMs = now.getTime() - retentionDays * DAY_MS;
  const deleter = new ObjectDeleter(client, bucket);
  const settle = async (folder: BatchFolder | undefined): Promise<void> => {
    if (folder !== undefined && folder.newestMs < cutoffMs) await deleter.add(folder.keys);
  };

  let folder: BatchFolder | undefined;
  let continuationToken: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: root, ContinuationToken: continuationToken }));
    for (const object of page.Contents ?? []) {
      const key = object.Key;
      const name = key === undefined ? undefined : batchFolderOf(key, root);
      if (key === undefined || name === undefined) continue;
      if (folder?.name !== name) {
        await settle(folder);
        folder = { name, keys: [], newestMs: Number.NEGATIVE_INFINITY };
      }
      folder.keys.push(key);
      folder.newestMs = Math.max(folder.newestMs, lastModifiedMs(object));
    }
    continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (continuationToken !== undefined);
  await settle(folder);
  await deleter.flush();
  return deleter.deleted;
}

/** `<table>/<batch>/` for a key `<root><table>/<batch>/<file…>`, else undefined. */
function batchFolderOf(key: string, root: string): string | undefined {
  if (!key.startsWith(root)) return undefined;
  const [table, batch, ...file] = key.slice(root.length).split('/');
  if (!table || !batch || file.length === 0 || file.every((segment) => segment === '')) return undefined;
  return `${table}/${batch}/`;
}

/** An object whose age is unknown counts as new. */
function lastModifiedMs(object: _Object): number {
  return object.LastModified?.getTime() ?? Number.POSITIVE_INFINITY;
}
