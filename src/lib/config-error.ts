/** A bad setting: main.ts turns it into exit code 2. Below config.ts, so the checks of single settings in src/lib can throw it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
