import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';

export interface ConsoleFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

/** The types the console is made of; a file of any other type in the folder is not served. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * The console's static files, read once at start into memory (they are small). A request is answered only when
 * its path is exactly the name of one of them: nothing is resolved against the disk at request time, so no path
 * (`..`, encoded or not, a symlink, a NUL) can reach a file outside the folder.
 */
export class ConsoleFiles {
  private constructor(
    private readonly files: ReadonlyMap<string, ConsoleFile>,
    /** Why there is no console (its folder is missing or empty), null when there is one. */
    readonly missingReason: string | null,
  ) {}

  static load(folder: string): ConsoleFiles {
    const files = new Map<string, ConsoleFile>();
    try {
      for (const path of filesUnder(folder)) {
        const contentType = CONTENT_TYPES[extname(path).toLowerCase()];
        if (contentType === undefined) continue;
        const body = readFileSync(path);
        const name = relative(folder, path).split(sep).join('/');
        files.set(name, { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
      }
    } catch (error) {
      return new ConsoleFiles(new Map(), `the console is not built (${folder}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}); run npm run build`);
    }
    const reason = files.has('index.html') ? null : `the console is not built (no index.html in ${folder}); run npm run build`;
    return new ConsoleFiles(files, reason);
  }

  /** The file a request path under /console/ names (`''` is index.html), as sent: still percent-encoded. */
  find(pathAfterPrefix: string): ConsoleFile | undefined {
    return this.files.get(pathAfterPrefix === '' ? 'index.html' : pathAfterPrefix);
  }

  get names(): string[] {
    return [...this.files.keys()].sort();
  }
}

function filesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path));
    // A symlink is neither: it could name a file outside the folder.
    else if (entry.isFile() && statSync(path).size <= 4 * 1024 * 1024) found.push(path);
  }
  return found;
}
