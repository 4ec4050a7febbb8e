/** Errors that stop the embedded store from opening or writing; the message names the file or pid. */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** Another live process holds the data directory. */
export class StoreLockedError extends StoreError {
  override name = 'StoreLockedError';
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`data directory ${dataDir} is in use by process ${pid} (lock file ${dataDir}/cardgate.lock)`);
  }
}

/** The error code of a Node fs error, if any. */
export const errorCode = (err: unknown): string | undefined =>
  typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
