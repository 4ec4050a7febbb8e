/** One JSON object per line on stdout. Never pass keys or tokens in fields. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/**
 * stdout, written once per event-loop turn rather than once per line (a request log line per
 * request would otherwise cost a write syscall each); what is left is written at exit.
 */
const batchedStdout = (): ((line: string) => void) => {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('\n') + '\n';
    pending = [];
    process.stdout.write(text);
  };
  process.on('exit', flush);
  return (line) => {
    if (pending.push(line) === 1) setImmediate(flush);
  };
};

export const createLogger = (write: (line: string) => void = batchedStdout(), now: () => number = Date.now): Logger => {
  const emit = (level: string, msg: string, fields?: LogFields) =>
    write(JSON.stringify({ time: new Date(now()).toISOString(), level, msg, ...fields }));
  return {
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
};

/** A logger that keeps lines in memory, for tests. */
export const memoryLogger = (): Logger & { lines: LogFields[] } => {
  const lines: LogFields[] = [];
  const logger = createLogger((line) => lines.push(JSON.parse(line)));
  return Object.assign(logger, { lines });
};

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
