/** The configuration a command runs with, or its usage exit when the configuration is refused (said on stderr). */
import { ConfigError, loadConfig, type Config, type ConfigSources } from '../config.ts';
import { USAGE, type CliIO } from './io.ts';

export const commandConfig = (command: string, io: CliIO, sources: ConfigSources): Config | typeof USAGE => {
  try {
    return loadConfig(sources);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr(`cardgate ${command}: ${e.message}\n`);
    return USAGE;
  }
};
