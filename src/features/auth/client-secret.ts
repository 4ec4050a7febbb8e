/** The OIDC client secret: as configured, or read from `clientSecretFile` within bounds (a bad file stops the start). */
import type { Config } from '../../config.ts';
import { ConfigError } from '../../lib/config-error.ts';
import { readTextFile } from '../../lib/read-file.ts';

const MAX_SECRET_BYTES = 4096;

export type OidcSettings = NonNullable<Config['auth']['oidc']>;

export const oidcClientSecret = (settings: OidcSettings): string => {
  if (settings.clientSecret !== undefined) return settings.clientSecret;
  const file = settings.clientSecretFile!;
  const read = readTextFile(file, { maxBytes: MAX_SECRET_BYTES, what: 'a client secret (auth.oidc.clientSecretFile)' });
  if ('problem' in read) throw new ConfigError(`cannot read auth.oidc.clientSecretFile (CARDGATE_OIDC_CLIENT_SECRET_FILE) ${file}: ${read.problem}`);
  const secret = read.text.replace(/\r?\n$/, '');
  if (secret === '' || /[\0-\x1f\x7f]/.test(secret)) throw new ConfigError(`auth.oidc.clientSecretFile (CARDGATE_OIDC_CLIENT_SECRET_FILE) ${file}: must hold the secret on one line, no control characters`);
  return secret;
};
