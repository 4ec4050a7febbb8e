import pkg from '../../package.json' with { type: 'json' };

/** The service version, inlined from package.json at build time. */
export const version: string = pkg.version;

/**
 * The Node.js runtime this process runs on, e.g. `v24.21.0`. Read when called, not when the module
 * loads: the single executable's modules are loaded while its start-up snapshot is built.
 */
export const nodeVersion = (): string => process.version;

/** What `cardgate version` prints: the service version and the runtime carrying it. */
export const versionLine = (): string => `cardgate ${version} (Node.js ${nodeVersion()}, ${process.platform}-${process.arch})`;
