/** `cardgate healthcheck [URL]`: exit 0 when URL/healthz answers 200, 1 otherwise (for container health checks without curl). */
import { readCommandLine } from './args.ts';
import { USAGE, type CliIO } from './io.ts';

const help = `Usage: cardgate healthcheck [URL]

Exits 0 when GET URL/healthz answers 200 within 5 s, 1 otherwise.
URL defaults to http://127.0.0.1:8080 (or http://127.0.0.1:$CARDGATE_PORT).
`;

export const runHealthcheck = async (args: string[], io: CliIO): Promise<number> => {
  const line = readCommandLine('healthcheck', help, io, args, {});
  if ('exit' in line) return line.exit;
  const { positionals, usage } = line;
  if (positionals.length > 1) return usage('give at most one URL');
  const base = (positionals[0] ?? `http://127.0.0.1:${process.env.CARDGATE_PORT || 8080}`).replace(/\/+$/, '');
  if (!URL.canParse(base)) {
    io.stderr(`cardgate healthcheck: not a URL: ${base}\n`);
    return USAGE;
  }
  try {
    const res = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5000) });
    io.stdout(`${base}/healthz: ${res.status}\n`);
    return res.status === 200 ? 0 : 1;
  } catch (e) {
    io.stderr(`cardgate healthcheck: ${base}/healthz: ${(e as Error).message}\n`);
    return 1;
  }
};
