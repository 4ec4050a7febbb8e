/** `cardgate accounts create|list|set-plan|delete`: accounts in the data dir, while no server holds it. */
import { listAccounts } from '../features/accounts/accounts.ts';
import { accountOperations } from '../features/accounts/operations.ts';
import { readCommandLine, runCommand } from './args.ts';
import { contextFlags, json, table, withStore, type AdminCliContext, type AdminCliIO } from './offline-store.ts';

export const accountsHelp = `Usage: cardgate accounts <command> [options]

Manages accounts in the data dir. Works only while no server holds the data dir;
with a server running, use its admin API at /admin/api instead.

Commands:
  create --name NAME --plan PLAN   create an account (PLAN: free, pro or team); prints its id
  list                             list accounts
  set-plan ID PLAN                 change an account's plan
  delete ID                        delete an account and all its keys

Options:
  --json            print JSON (the admin API's shapes)
  --config PATH     configuration file
  --data-dir DIR    data directory (default ./data)
  -h, --help        show this help
`;

export const runAccounts = async (args: string[], io: AdminCliIO, ctx: AdminCliContext): Promise<number> => {
  const line = readCommandLine('accounts', accountsHelp, io, args, { ...contextFlags, name: { type: 'string' }, plan: { type: 'string' }, json: { type: 'boolean' } });
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  const [command, ...rest] = positionals;
  const run = (action: Parameters<typeof withStore>[3]) => withStore(`accounts ${command}`, io, ctx, action);

  return runCommand(
    command,
    {
      create: () => {
        if (rest.length > 0 || values.name === undefined || values.plan === undefined) return usage('usage: cardgate accounts create --name NAME --plan PLAN');
        return run(async (_store, { deps, by }) => {
          const account = await accountOperations(deps).create({ name: values.name, plan: values.plan }, by);
          io.stdout(values.json ? json({ account }) : `${account.id}\n`);
        });
      },
      list: () => {
        if (rest.length > 0) return usage('usage: cardgate accounts list');
        return run(async (store) => {
          const accounts = await listAccounts(store);
          if (values.json) io.stdout(json({ accounts }));
          else if (accounts.length === 0) io.stdout('no accounts\n');
          else io.stdout(table(['ID', 'PLAN', 'KEYS', 'CREATED', 'NAME'], accounts.map((a) => [a.id, a.plan, String(a.key_count), a.created_at, a.name])));
        });
      },
      'set-plan': () => {
        if (rest.length !== 2) return usage('usage: cardgate accounts set-plan ID PLAN');
        return run(async (_store, { deps, by }) => {
          const account = await accountOperations(deps).update(rest[0]!, { plan: rest[1] }, by);
          io.stdout(values.json ? json({ account }) : `${account.id}: plan ${account.plan}\n`);
        });
      },
      delete: () => {
        if (rest.length !== 1) return usage('usage: cardgate accounts delete ID');
        return run(async (_store, { deps, by }) => {
          await accountOperations(deps).delete(rest[0]!, by);
          io.stdout(values.json ? json({ deleted: true }) : `deleted account ${rest[0]} and its keys\n`);
        });
      },
    },
    usage,
  );
};
