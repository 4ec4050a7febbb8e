/** The embedded, durable store (lowdb documents in a locked data directory). */
export { FileStore, openFileStore, type FileStoreOptions } from './file/file-store.ts';
export { StoreError, StoreLockedError } from './file/errors.ts';
