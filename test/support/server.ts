/**
 * Starts the real server on a free port with a temp data dir, for black-box tests: as a child
 * process (`node --import tsx src/main.ts serve`, for signals, crashes and its output), or in this
 * process; both through startServer, as `cardgate serve` and the benchmarks start it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig, type ConfigInput } from '../../src/config.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { startServer as startService, type RunningServer as RunningService } from '../../src/server.ts';
import { tempDirFactory } from './temp.ts';

const root = new URL('../..', import.meta.url).pathname;
// Removed when the test file's tests are done, not at stop(): tests restart a server on
// the data dir of the one they stopped.
const newDataDir = tempDirFactory('cardgate-test-');
const newConfigDir = tempDirFactory('cardgate-cfg-');

export interface StartOptions {
  /** Written to a config file passed with --config. */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Reuse a data dir (restart tests); default: a new temp dir, removed after the test file. */
  dataDir?: string;
  /** Extra serve flags. */
  args?: string[];
  /** Command to run instead of tsx (e.g. the built binary): argv before 'serve'. */
  command?: string[];
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir: string;
  pid: number;
  child: ChildProcess;
  /** SIGTERM, then resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL, resolves once the process is gone. */
  kill9(): Promise<void>;
  stdout(): string;
  stderr(): string;
}

const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)));

/** Runs `cardgate <args>` to completion (for start-up failures and CLI tests). */
export const runCli = async (
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; command?: string[]; timeoutMs?: number; stdin?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> => {
  // tsx resolved from here, so that a test may run the CLI in a directory of its own.
  const [cmd, ...pre] = options.command ?? [process.execPath, '--import', import.meta.resolve('tsx'), join(root, 'src/main.ts')];
  const child = spawn(cmd!, [...pre, ...args], {
    cwd: options.cwd ?? root,
    env: { ...process.env, ...options.env },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, stdout, stderr };
};

export const startServer = async (options: StartOptions = {}): Promise<RunningServer> => {
  const dataDir = options.dataDir ?? newDataDir();
  const args = ['serve', '--port', '0', '--data-dir', dataDir, ...(options.args ?? [])];
  if (options.config) {
    const path = join(newConfigDir(), 'cardgate.json');
    writeFileSync(path, JSON.stringify(options.config));
    args.push('--config', path);
  }
  const [cmd, ...pre] = options.command ?? [process.execPath, '--import', 'tsx', join(root, 'src/main.ts')];
  const child = spawn(cmd!, [...pre, ...args], {
    cwd: root,
    env: { ...process.env, CARDGATE_ADMIN_TOKEN: 'test-admin-token-0123456789', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 30 s\nstdout: ${out}\nstderr: ${err}`)), 30_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /"msg":"listening".*?"url":"http:\/\/[^"]*:(\d+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    pid: child.pid!,
    child,
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      return exited(child);
    },
    kill9: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    stdout: () => out,
    stderr: () => err,
  };
};

/**
 * The service in this process (startServer), on a free loopback port with a temp data dir: for
 * tests that need no process of their own. `output` holds what it wrote (its log lines).
 */
export const startInProcess = async (config: ConfigInput = {}, options: { clock?: Clock } = {}): Promise<RunningService & { dataDir: string; output: () => string }> => {
  const dataDir = config.dataDir ?? newDataDir();
  let output = '';
  const write = (text: string) => void (output += text);
  const server = await startService(parseConfig({ host: '127.0.0.1', port: 0, adminToken: 'test-admin-token-0123456789', ...config, dataDir }), { output: { stdout: write, stderr: write }, ...options });
  return { ...server, dataDir, output: () => output };
};
