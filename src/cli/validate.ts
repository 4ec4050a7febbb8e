/**
 * `cardgate validate FILE|- [--protocol-version V] [--format text|json]`: offline validation with the
 * same engine as the API. Exit 0 valid, 1 invalid, 2 usage error or unreadable / non-JSON input.
 */
import { readFile } from 'node:fs/promises';
import { formatSummary, isSupportedVersion, supportedVersions, validateCard } from '../engine/index.ts';
import { readCommandLine } from './args.ts';
import { USAGE, type CliIO } from './io.ts';

const help = `Usage: cardgate validate FILE|- [--protocol-version V] [--format text|json]

Validate one A2A agent card (JSON) offline; '-' reads it from standard input.

Options:
  --protocol-version V  validate against V instead of the version the card declares
                        (${supportedVersions.join(', ')})
  --format text|json    text report (default) or the JSON result of the API
  -h, --help            show this help

Exit codes: 0 valid, 1 invalid, 2 usage error or unreadable / non-JSON input.
`;

export async function runValidate(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('validate', help, io, args, { 'protocol-version': { type: 'string' }, format: { type: 'string', default: 'text' } });
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  if (positionals.length !== 1) return usage(positionals.length ? 'give exactly one FILE (or -)' : 'missing FILE (or - for standard input)');
  const format = values.format;
  if (format !== 'text' && format !== 'json') return usage(`--format must be text or json, not "${format}"`);
  const version = values['protocol-version'];
  if (version !== undefined && !isSupportedVersion(version)) {
    return usage(`unsupported --protocol-version "${version}"; supported: ${supportedVersions.join(', ')}`);
  }

  const file = positionals[0]!;
  const name = file === '-' ? 'stdin' : file;
  let text: string;
  try {
    text = file === '-' ? await io.readStdin() : await readFile(file, 'utf8');
  } catch (e) {
    io.stderr(`cardgate validate: cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return USAGE;
  }
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch (e) {
    io.stderr(`cardgate validate: ${name} is not valid JSON: ${(e as Error).message}\n`);
    return USAGE;
  }

  const result = validateCard(card, version === undefined ? {} : { protocolVersion: version });
  io.stdout(format === 'json' ? `${JSON.stringify(result, null, 2)}\n` : formatSummary(result, { name }));
  return result.valid ? 0 : 1;
}
