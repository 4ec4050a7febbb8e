import pkg from '../../package.json' with { type: 'json' };

/** The service version, inlined from package.json at build time. */
export const version: string = pkg.version;
