/** One JSON object per line on stdout. Never pass keys or tokens in fields. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export const createLogger = (
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  now: () => number = Date.now,
): Logger => {
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
