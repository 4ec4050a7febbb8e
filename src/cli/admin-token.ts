/** `cardgate admin-token rotate`: replaces the generated admin token (its file and the stored hash), recorded in the audit log. */
import { adminTokenFile, rotateAdminToken, rotationRefusal } from '../features/accounts/admin-token.ts';
import { recordAudit } from '../features/audit/audit.ts';
import { readCommandLine, runCommand } from './args.ts';
import { contextFlags, withStore, type AdminCliContext, type AdminCliIO } from './offline-store.ts';

export const adminTokenHelp = `Usage: cardgate admin-token rotate [options]

Replaces the admin token cardgate generated: the new one is written to the data dir's
admin-token file (mode 0600) and printed on stdout; its hash replaces the stored one. With
PostgreSQL every instance takes it at its next request, and this works while they run; the
data dir's file store works only while no server holds it. Refused when the token is
configured (adminToken / CARDGATE_ADMIN_TOKEN: change it there) or switched off
(auth.adminToken: false). Recorded in the audit log as done by the OS user.

Options:
  --config PATH     configuration file
  --data-dir DIR    data directory (default ./data): where the admin-token file is
  -h, --help        show this help
`;

export const runAdminToken = async (args: string[], io: AdminCliIO, ctx: AdminCliContext): Promise<number> => {
  const line = readCommandLine('admin-token', adminTokenHelp, io, args, contextFlags);
  if ('exit' in line) return line.exit;
  const { positionals, usage } = line;
  const [command, ...rest] = positionals;
  return runCommand(
    command,
    {
      rotate: () => {
        if (rest.length > 0) return usage('usage: cardgate admin-token rotate');
        const refused = rotationRefusal(ctx.config);
        if (refused !== undefined) {
          io.stderr(`cardgate admin-token rotate: ${refused}\n`);
          return 1;
        }
        const file = adminTokenFile(ctx.config);
        return withStore('admin-token rotate', io, ctx, async (store, { deps, by }) => {
          const token = await rotateAdminToken(store, file);
          await recordAudit(deps, by, { action: 'admin_token.rotate', target: { type: 'admin_token', id: null }, after: { file } });
          io.stdout(`${token}\n`);
          io.stderr(`the admin token is replaced: the new one is in ${file} (the old one is refused from now on)\n`);
        }, 'stop the server, rotate, then start it (no admin route rotates the token)');
      },
    },
    usage,
  );
};
