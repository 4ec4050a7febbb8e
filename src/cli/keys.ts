/** `cardgate keys create|list|delete`: API keys in the data dir, while no server holds it. */
import { listKeys } from '../features/accounts/api-keys.ts';
import { accountOperations } from '../features/accounts/operations.ts';
import { readCommandLine, runCommand } from './args.ts';
import { contextFlags, json, table, withStore, type AdminCliContext, type AdminCliIO } from './offline-store.ts';

export const keysHelp = `Usage: cardgate keys <command> [options]

Manages API keys in the data dir. Works only while no server holds the data dir;
with a server running, use its admin API at /admin/api instead.

Commands:
  create --account ID --name NAME [--allow-ip CIDR ...]
                          create a key; prints the full key, which is shown only this once.
                          --allow-ip (team plan): IPs/CIDRs allowed to use the key, repeatable
  list [--account ID]     list keys (hints only, never full keys) with their last use
  delete ID               delete a key; it stops working at once

Options:
  --json            print JSON (the admin API's shapes)
  --config PATH     configuration file
  --data-dir DIR    data directory (default ./data)
  -h, --help        show this help
`;

export const runKeys = async (args: string[], io: AdminCliIO, ctx: AdminCliContext): Promise<number> => {
  const line = readCommandLine('keys', keysHelp, io, args, {
    ...contextFlags,
    account: { type: 'string' },
    name: { type: 'string' },
    'allow-ip': { type: 'string', multiple: true },
    json: { type: 'boolean' },
  });
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  const [command, ...rest] = positionals;
  const run = (action: Parameters<typeof withStore>[3]) => withStore(`keys ${command}`, io, ctx, action);

  return runCommand(
    command,
    {
      create: () => {
        if (rest.length > 0 || values.account === undefined || values.name === undefined) {
          return usage('usage: cardgate keys create --account ID --name NAME [--allow-ip CIDR ...]');
        }
        return run(async (_store, { deps, by }) => {
          const input = { name: values.name, allowed_ips: values['allow-ip'] };
          const created = await accountOperations(deps).createKey(values.account!, input, by);
          if (values.json) {
            io.stdout(json(created));
            return;
          }
          io.stdout(`${created.secret}\n`);
          io.stderr(`created key ${created.key.id} (${created.key.hint}) for account ${created.key.account_id}; store it now: it cannot be shown again\n`);
        });
      },
      list: () => {
        if (rest.length > 0) return usage('usage: cardgate keys list [--account ID]');
        return run(async (store) => {
          const keys = await listKeys(store, values.account);
          if (values.json) io.stdout(json({ keys }));
          else if (keys.length === 0) io.stdout('no keys\n');
          else {
            const rows = keys.map((k) => [k.id, k.account_id, k.hint, k.last_used_at ?? 'never', k.allowed_ips.join(',') || 'any', k.name]);
            io.stdout(table(['ID', 'ACCOUNT', 'HINT', 'LAST USED', 'ALLOWED IPS', 'NAME'], rows));
          }
        });
      },
      delete: () => {
        if (rest.length !== 1) return usage('usage: cardgate keys delete ID');
        return run(async (_store, { deps, by }) => {
          await accountOperations(deps).deleteKey(rest[0]!, by);
          io.stdout(values.json ? json({ deleted: true }) : `deleted key ${rest[0]}\n`);
        });
      },
    },
    usage,
  );
};
