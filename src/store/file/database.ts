/**
 * The embedded store's database: SQLite (node:sqlite, built into Node 24 and Deno; no package),
 * one file `cardgate.db` in the data directory holding what grows with use (reports, agents and
 * their histories, jobs, the audit log), read from disk on demand through its indexes.
 *
 * One connection on the event loop, in WAL mode. Writes are made at once (a caller reads its own
 * write back at once, as from the memory tables), inside one transaction per event-loop turn that
 * the turn's first write begins and endTurn() commits: every request of the turn shares it. Each
 * store operation is one SAVEPOINT inside it (atomically()), so a failing operation rolls back only
 * itself. With `synchronous=NORMAL` a commit writes the WAL without waiting for the disk; sync()
 * then makes it durable with an fdatasync of the WAL file in the threadpool, so the event loop
 * never waits for the disk. A commit is acknowledged only after that sync: a crash of the process
 * keeps it (it is in the WAL, which SQLite replays), and so does a power loss once synced. SQLite
 * checkpoints the WAL into the database as it grows (about every 4 MB), syncing both files.
 */
import fs from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { FILE_MODE, dataSync, diskChange } from './durable-file.ts';
import { StoreError } from './errors.ts';

export const DATABASE_FILE = 'cardgate.db';

let statementObserver: ((sql: string) => void) | undefined;
/** Sets (or with no argument clears) the observer of the statements the database prepares: a test reads their plans. */
export const observeStatements = (observer?: (sql: string) => void): void => {
  statementObserver = observer;
};

export class EmbeddedDatabase {
  private readonly statements = new Map<string, StatementSync>();
  private inTurn = false;
  /** Steps under way, nested (a report's put records its joins, each a step of its own): only the outermost is a savepoint. */
  private depth = 0;
  /** Commits not yet covered by a sync. */
  private unsynced = false;
  private walFd: number | undefined;

  private constructor(
    readonly file: string,
    readonly db: DatabaseSync,
    /** Called on the first write of a turn: the owner ends the turn (endTurn) before the next one. */
    private readonly onFirstWrite: () => void,
  ) {}

  static open(file: string, onFirstWrite: () => void): EmbeddedDatabase {
    const existed = fs.existsSync(file);
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(file);
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = OFF; PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY');
    } catch (e) {
      throw new StoreError(`cannot open the database ${file}: ${(e as Error).message}`);
    }
    if (!existed) fs.chmodSync(file, FILE_MODE);
    return new EmbeddedDatabase(file, db, onFirstWrite);
  }

  /** A prepared statement, kept for the next call with the same text. */
  statement(sql: string): StatementSync {
    let prepared = this.statements.get(sql);
    if (prepared === undefined) {
      statementObserver?.(sql);
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  /** Runs statements that return nothing (the schema). */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  /**
   * Runs `write` as one atomic step of the turn's transaction: its changes are kept when it
   * returns and undone when it throws (the error goes to its caller; the turn's other writes stay).
   * The transaction's first step needs no savepoint (undoing it is undoing the transaction), nor
   * does a step within a step (it is part of it): a savepoint costs a tenth of a report's put.
   */
  atomically<T>(write: () => T): T {
    if (this.depth > 0) return write();
    const opens = !this.inTurn;
    if (opens) {
      this.statement('BEGIN').run();
      this.inTurn = true;
      this.onFirstWrite();
    } else this.statement('SAVEPOINT step').run();
    this.depth++;
    try {
      const result = write();
      if (!opens) this.statement('RELEASE step').run();
      return result;
    } catch (e) {
      if (opens) {
        this.statement('ROLLBACK').run();
        this.inTurn = false;
      } else {
        this.statement('ROLLBACK TO step').run();
        this.statement('RELEASE step').run();
      }
      throw e;
    } finally {
      this.depth--;
    }
  }

  /** Commits the turn's transaction, if one is open (no wait for the disk: see sync()). On failure the turn's writes are undone and the error thrown. */
  endTurn(): void {
    if (!this.inTurn) return;
    this.inTurn = false;
    diskChange(this.file); // the commit writes the WAL (and, past its bound, checkpoints it into the database)
    try {
      this.statement('COMMIT').run();
    } catch (e) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
    this.unsynced = true;
  }

  /** Whether a transaction was committed since the last sync. */
  get unsyncedCommits(): boolean {
    return this.unsynced;
  }

  /** Makes every transaction committed so far durable: an fdatasync of the WAL in the threadpool, when one was committed since the last. */
  async sync(): Promise<void> {
    if (!this.unsynced) return;
    this.unsynced = false;
    this.walFd ??= fs.openSync(`${this.file}-wal`, 'r+');
    try {
      await dataSync(this.walFd);
    } catch (e) {
      this.unsynced = true;
      throw e;
    }
  }

  /**
   * A connection of its own that reads the database as it is now, whatever is written meanwhile
   * (an export): the turn's writes are committed first, so that it sees them.
   */
  snapshot(): EmbeddedDatabase {
    this.endTurn();
    const db = new DatabaseSync(this.file, { readOnly: true });
    db.exec('BEGIN');
    db.prepare('SELECT count(*) FROM sqlite_schema').get(); // the read that fixes the snapshot
    return new EmbeddedDatabase(this.file, db, () => {
      throw new Error('a snapshot is read only');
    });
  }

  /** Writes the WAL into the database and truncates it (at close, and after a bulk load). */
  checkpoint(): void {
    diskChange(this.file);
    this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    if (this.walFd !== undefined) fs.closeSync(this.walFd);
    this.walFd = undefined;
    if (this.db.isTransaction) this.db.exec('ROLLBACK');
    if (this.db.isOpen) this.db.close();
  }
}
