/** `cardgate healthcheck [URL]`: exit 0 when URL/healthz answers 200, 1 otherwise (for container health checks without curl). */
import { USAGE, type CliIO } from './io.ts';

const help = `Usage: cardgate healthcheck [URL]

Exits 0 when GET URL/healthz answers 200 within 5 s, 1 otherwise.
URL defaults to http://127.0.0.1:8080 (or http://127.0.0.1:$CARDGATE_PORT).
`;

export const runHealthcheck = async (args: string[], io: CliIO): Promise<number> => {
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(help);
    return 0;
  }
  if (args.length > 1 || args.some((a) => a.startsWith('-'))) {
    io.stderr(help);
    return USAGE;
  }
  const base = (args[0] ?? `http://127.0.0.1:${process.env.CARDGATE_PORT || 8080}`).replace(/\/+$/, '');
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
