/** `cardgate trust add|list|revoke|delete`: the trusted keys of signature verification, in the store. */
import { keyFileBound } from '../features/trust/trust-files.ts';
import { readTextFile } from '../lib/read-file.ts';
import { findTrustKey, listTrustKeys, type TrustKeyView } from '../features/trust/managed-keys.ts';
import { trustKeyOperations } from '../features/trust/operations.ts';
import { USAGE } from './io.ts';
import { readCommandLine, runCommand } from './args.ts';
import { contextFlags, json, table, withStore, type AdminCliContext, type AdminCliIO } from './offline-store.ts';

export const trustHelp = `Usage: cardgate trust <command> [options]

Manages the public keys signed agent cards are verified with (besides JWKS files).
On the data dir it works only while no server holds it (with a server running, use
its admin API at /admin/api/trust-keys); on PostgreSQL (CARDGATE_DATABASE_URL) at any time.

Commands:
  add FILE [--account ID] [--jku URL] [--kid KID]
                          trust the public key of FILE.jwk, or each key of FILE.jwks
                          (all or none); --account: for that account's cards only
                          (default: every caller's); --kid: for a JWK without one
  list [--account ID]     list trusted keys: all, or the global ones and the account's
  revoke KID|ID [--at ISO] [--account ID]
                          refuse the key's signatures from --at (default now); a kid
                          several keys share needs --account, or the key's id
  delete KID|ID [--account ID]
                          delete a key (its kid may then be given to another key)

Options:
  --json            print JSON (the admin API's shapes)
  --config PATH     configuration file
  --data-dir DIR    data directory (default ./data)
  -h, --help        show this help
`;

/** The add body for a key file's text: a JWK set (an object with `keys`) or one JWK. */
const keysOfFile = (text: string): { jwk: unknown } | { jwks: unknown } => {
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null && 'keys' in value ? { jwks: value } : { jwk: value };
};

const scope = (k: TrustKeyView) => k.account_id ?? 'global';

/** The add body of key file `file`, or the exit code once the problem is printed (a file that is not JSON is a usage error). */
const readKeyFile = (file: string, io: AdminCliIO): { body: ReturnType<typeof keysOfFile> } | { exit: number } => {
  const read = readTextFile(file, keyFileBound);
  try {
    if ('problem' in read) throw new Error(read.problem);
    return { body: keysOfFile(read.text) };
  } catch (e) {
    io.stderr(`cardgate trust add: ${file}: ${(e as Error).message}\n`);
    return { exit: e instanceof SyntaxError ? USAGE : 1 };
  }
};

const trustOptions = {
  ...contextFlags,
  account: { type: 'string' },
  jku: { type: 'string' },
  kid: { type: 'string' },
  at: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export const runTrust = async (args: string[], io: AdminCliIO, ctx: AdminCliContext): Promise<number> => {
  const line = readCommandLine('trust', trustHelp, io, args, trustOptions);
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  const [command, ...rest] = positionals;
  const run = (action: Parameters<typeof withStore>[3]) => withStore(`trust ${command}`, io, ctx, action);
  const onlyFor = (allowed: string[], shape: string): number | undefined => {
    const stray = (['jku', 'kid', 'at'] as const).find((flag) => values[flag] !== undefined && !allowed.includes(flag));
    return stray ? usage(`--${stray} does not go with ${command}; usage: ${shape}`) : undefined;
  };

  return runCommand(
    command,
    {
      add: () => {
        const shape = 'cardgate trust add FILE [--account ID] [--jku URL] [--kid KID]';
        if (rest.length !== 1) return usage(`usage: ${shape}`);
        const refused = onlyFor(['jku', 'kid'], shape);
        if (refused !== undefined) return refused;
        if (rest[0] === '') return usage(`an empty FILE names no file; usage: ${shape}`);
        const read = readKeyFile(rest[0]!, io);
        if ('exit' in read) return read.exit;
        return run(async (_store, { deps, by }) => {
          const input = { ...read.body, kid: values.kid, jku: values.jku, account_id: values.account };
          const keys = await trustKeyOperations(deps).add(input, by);
          if (values.json) io.stdout(json({ keys }));
          else for (const k of keys) io.stdout(`trusted ${k.kid} (${k.id}, ${k.alg ?? k.kty}, thumbprint ${k.thumbprint}) for ${k.account_id ?? 'every caller'}\n`);
        });
      },
      list: () => {
        if (rest.length > 0) return usage('usage: cardgate trust list [--account ID]');
        const refused = onlyFor([], 'cardgate trust list [--account ID]');
        if (refused !== undefined) return refused;
        return run(async (store) => {
          const keys = await listTrustKeys(store, values.account);
          if (values.json) io.stdout(json({ keys }));
          else if (keys.length === 0) io.stdout('no trusted keys\n');
          else {
            const rows = keys.map((k) => [k.id, k.kid, k.alg ?? k.kty, scope(k), k.thumbprint, k.added_at, k.revoked_at ?? '-']);
            io.stdout(table(['ID', 'KID', 'ALG', 'SCOPE', 'THUMBPRINT', 'ADDED', 'REVOKED'], rows));
          }
        });
      },
      revoke: () => {
        const shape = 'cardgate trust revoke KID|ID [--at ISO] [--account ID]';
        if (rest.length !== 1) return usage(`usage: ${shape}`);
        const refused = onlyFor(['at'], shape);
        if (refused !== undefined) return refused;
        return run(async (store, { deps, by }) => {
          const found = await findTrustKey(store, rest[0]!, values.account);
          const key = await trustKeyOperations(deps).revoke(found.id, values.at === undefined ? {} : { at: values.at }, by);
          io.stdout(values.json ? json({ key }) : `revoked ${key.kid} (${key.id}, ${scope(key)}) from ${key.revoked_at}\n`);
        });
      },
      delete: () => {
        const shape = 'cardgate trust delete KID|ID [--account ID]';
        if (rest.length !== 1) return usage(`usage: ${shape}`);
        const refused = onlyFor([], shape);
        if (refused !== undefined) return refused;
        return run(async (store, { deps, by }) => {
          const found = await findTrustKey(store, rest[0]!, values.account);
          await trustKeyOperations(deps).delete(found.id, by);
          io.stdout(values.json ? json({ deleted: true }) : `deleted ${found.kid} (${found.id}, ${found.account_id ?? 'global'})\n`);
        });
      },
    },
    usage,
  );
};
