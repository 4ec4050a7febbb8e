/**
 * `cardgate diff OLD NEW`: what changed from one agent card to another, each change of the card
 * classed breaking, compatible or cosmetic (docs/compatibility.md), and the findings new and fixed,
 * both cards validated offline with the engine and limits of `cardgate validate`.
 * Exit 0: no breaking change; 1: a breaking change; 2: a usage error, or a card that could not be
 * read or parsed.
 */
import path from 'node:path';
import { CHANGE_CLASSES, changeRules } from '../engine/change-classes.ts';
import { diffValidations, judgementOfResult, type CardChange, type DiffFinding, type ValidationDiff } from '../engine/diff.ts';
import type { CheckedInput } from '../engine/formats/index.ts';
import { isSupportedVersion, supportedVersions } from '../engine/index.ts';
import { looksLikeUrl } from '../features/card-fetch/fetch-card.ts';
import { withoutBom } from '../lib/text-position.ts';
import { readCommandLine } from './args.ts';
import type { CardInput } from './card-inputs.ts';
import { checkInputs, checkOffline, runLimits } from './card-run.ts';
import { USAGE, type CliIO } from './io.ts';
import { commandConfig } from './cli-config.ts';

const help = `Usage: cardgate diff [options] OLD NEW

Compare two agent cards: each change of the card classed breaking, compatible or cosmetic
(docs/compatibility.md), and the findings the new card adds or fixes. OLD and NEW are each a
FILE, a URL (https://agent.example fetches /.well-known/agent-card.json, else agent.json) or -
(standard input, for one of them); both are validated offline as cardgate validate does.

Options:
  -f, --format F        text (default) or json
  --protocol-version V  validate both against V instead of the version each declares
                        (${supportedVersions.join(', ')})
  --config PATH         settings file (default ./cardgate.json when present; CARDGATE_* env too):
                        http.maxBodyBytes and http.maxJsonDepth bound each card,
                        cardFetch.timeoutMs each URL
  -h, --help            show this help

Exit codes: 0 no breaking change; 1 a breaking change; 2 usage error, or a card that could
not be read, fetched or parsed (said on standard error).
`;

const diffOptions = {
  format: { type: 'string', short: 'f', default: 'text' },
  'protocol-version': { type: 'string' },
  config: { type: 'string' },
} as const;

/** An operand as the one input it names: standard input, a URL, or a file (a directory or glob is no card). */
const inputOf = (operand: string, workDir: string): CardInput =>
  operand === '-' ? { kind: 'stdin', name: 'stdin' } : looksLikeUrl(operand) ? { kind: 'url', name: operand } : { kind: 'file', name: operand, path: path.resolve(workDir, operand) };

/** Both cards read and validated, and their diff; or why one could not be. */
export const diffInputs = (before: CheckedInput, after: CheckedInput): ValidationDiff | { problem: string } => {
  for (const input of [before, after]) {
    if (input.failure || !input.result || input.text === undefined) return { problem: `${input.name}: ${input.failure?.message ?? 'no card'}` };
  }
  const side = (input: CheckedInput) => ({ ...judgementOfResult(input.result!), card: JSON.parse(withoutBom(input.text!)) as unknown });
  return diffValidations(side(before), side(after));
};

const changeLine = (c: CardChange): string => {
  const values = c.old !== undefined && c.new !== undefined ? `${c.old} -> ${c.new}` : (c.new ?? c.old ?? '');
  return `  ${c.rule}  ${c.op} ${c.path}: ${values}\n`;
};

const findingLine = (kind: string, f: DiffFinding): string => `  ${kind} ${f.severity} ${f.rule} ${f.path}: ${f.message}\n`;

const verdictWord = (valid: boolean | null): string => (valid === null ? 'unknown' : valid ? 'valid' : 'invalid');

/** The diff for people: the card's changes by class (each class's listed ones), the findings new and fixed, verdict and score. */
export const diffText = (names: { before: string; after: string }, diff: ValidationDiff): string => {
  const { card, findings, verdict, score } = diff;
  const lines = [`cardgate diff: ${names.before} -> ${names.after}\n`];
  lines.push(`Card: ${card.class === null ? 'unchanged' : card.class} (${CHANGE_CLASSES.map((cls) => `${card.counts[cls]} ${cls}`).join(', ')})\n`);
  for (const cls of CHANGE_CLASSES) {
    if (card.counts[cls] === 0) continue;
    const listed = card.changes.filter((c) => c.class === cls);
    lines.push(`\n${cls[0]!.toUpperCase()}${cls.slice(1)} (${card.counts[cls]})\n`, ...listed.map(changeLine));
    if (listed.length < card.counts[cls]) lines.push(`  ${card.counts[cls] - listed.length} more not listed (the diff lists at most 200 changes)\n`);
  }
  if (!card.complete) lines.push('\nThe cards are too large to compare whole: the comparison stopped after its first 200,000 values.\n');
  const rules = [...new Set(card.changes.filter((c) => c.class === 'breaking').map((c) => c.rule))];
  if (rules.length > 0) lines.push(`\nWhy breaking:\n${rules.map((r) => `  ${r}: ${changeRules[r].why}\n`).join('')}`);
  lines.push(`\nFindings: ${findings.counts.new} new, ${findings.counts.fixed} fixed, ${findings.counts.unchanged} unchanged\n`);
  lines.push(...findings.new.map((f) => findingLine('new  ', f)), ...findings.fixed.map((f) => findingLine('fixed', f)));
  const delta = score.delta === null ? '' : ` (${score.delta > 0 ? '+' : ''}${score.delta})`;
  lines.push(`Verdict: ${verdictWord(verdict.before)} -> ${verdictWord(verdict.after)}; score ${score.before ?? '-'} -> ${score.after ?? '-'}${delta}\n`);
  return lines.join('');
};

export async function runDiff(args: string[], io: CliIO): Promise<number> {
  const line = readCommandLine('diff', help, io, args, diffOptions);
  if ('exit' in line) return line.exit;
  const { values, positionals, usage } = line;
  if (positionals.length !== 2) return usage(`give two cards, OLD and NEW (${positionals.length} given)`);
  if (positionals.every((p) => p === '-')) return usage('standard input (-) can be only one of the two cards');
  if (positionals.includes('')) return usage("an empty operand ('') names no card");
  const format = values.format;
  if (format !== 'text' && format !== 'json') return usage(`--format must be text or json, not "${format}"`);
  const protocolVersion = values['protocol-version'];
  if (protocolVersion !== undefined && !isSupportedVersion(protocolVersion)) return usage(`unsupported --protocol-version "${protocolVersion}"; supported: ${supportedVersions.join(', ')}`);
  const config = commandConfig('diff', io, { env: io.env ?? process.env, ...(values.config === undefined ? {} : { configPath: values.config }) });
  if (typeof config === 'number') return config;
  const limits = runLimits(config);
  const inputs = positionals.map((operand) => inputOf(operand, process.cwd()));
  const [before, after] = await checkInputs(inputs, limits, checkOffline(limits, { protocolVersion }), io.readStdin);
  const diff = diffInputs(before!, after!);
  if ('problem' in diff) {
    io.stderr(`cardgate diff: ${diff.problem}\n`);
    return USAGE;
  }
  const names = { before: before!.name, after: after!.name };
  io.stdout(format === 'json' ? `${JSON.stringify({ before: names.before, after: names.after, ...diff }, null, 2)}\n` : diffText(names, diff));
  return diff.card.counts.breaking > 0 || !diff.card.complete ? 1 : 0;
}
