/**
 * A validation run over many inputs, shared by `cardgate validate` and the GitHub Action: each
 * input read (a file, standard input, a URL) within the server's limits (`http.maxBodyBytes`,
 * `http.maxJsonDepth`), checked, and the run's verdict as an exit code.
 */
import type { Config } from '../config.ts';
import { checkCardText, type CheckedInput } from '../engine/formats/index.ts';
import { totalsOf } from '../engine/formats/input.ts';
import type { SignaturePolicy, ValidateOptions } from '../engine/index.ts';
import { createAddressPolicy, type AddressPolicy } from '../lib/address-policy.ts';
import { fetchCard, foundOnlyAtLegacyPath } from '../features/card-fetch/fetch-card.ts';
import { describeOutOfRange, outOfRangeNumber } from '../lib/json-numbers.ts';
import { readTextFile, type FileText, type ReadBound } from '../lib/read-file.ts';
import { rulesetForFile } from '../engine/ruleset/apply.ts';
import type { CompiledRulesetData } from '../engine/ruleset/compile.ts';
import { version } from '../lib/version.ts';
import type { CardInput } from './card-inputs.ts';
import { readOperand, type CliIO } from './io.ts';

export interface RunLimits {
  /** Largest card, bytes (`http.maxBodyBytes`). */
  maxBytes: number;
  /** Deepest nesting (`http.maxJsonDepth`). */
  maxDepth: number;
  /** Longest fetch of a card by URL (`cardFetch.timeoutMs`). */
  fetchTimeoutMs: number;
}

export const runLimits = (config: Config): RunLimits => ({
  maxBytes: config.http.maxBodyBytes,
  maxDepth: config.http.maxJsonDepth,
  fetchTimeoutMs: config.cardFetch.timeoutMs,
});

/** The bound of each card read, as the server bounds a request's card. */
const cardBound = (limits: RunLimits): ReadBound => ({ maxBytes: limits.maxBytes, what: 'a card (http.maxBodyBytes)' });

/**
 * The CLI fetches what its user asks for, private hosts and other hosts' redirects included, within
 * the time and size limits. Made on the first URL (its address ranges take a few ms to parse).
 */
let userFetch: AddressPolicy | undefined;

/** Reads one input: a file, standard input (through `readStdin`, which stops past `maxBytes`), or a URL. */
const readInput = async (input: CardInput, limits: RunLimits, readStdin: CliIO['readStdin']): Promise<FileText & { name?: string; foundAtLegacyPath?: boolean }> => {
  switch (input.kind) {
    case 'missing':
      return { problem: input.message };
    case 'file':
      return readTextFile(input.path, cardBound(limits));
    case 'stdin':
      return readOperand('-', cardBound(limits), readStdin);
    case 'url': {
      const fetched = await fetchCard(input.name, {
        policy: (userFetch ??= createAddressPolicy(['*'], { field: 'URL', connections: 'fetches', setting: 'none' })),
        timeoutMs: limits.fetchTimeoutMs,
        maxBytes: limits.maxBytes,
        userAgent: `cardgate/${version}`,
        redirectsToOtherHosts: true,
      });
      // Named by where the card was read (a bare origin's well-known path, after redirects): `host:port:66:3` would be no place.
      return 'text' in fetched ? { text: fetched.text, name: fetched.source.url, foundAtLegacyPath: foundOnlyAtLegacyPath(fetched.source) } : { problem: fetched.problem };
    }
  }
};

/** Checks a card's text: offline with the engine (the default), or by a cardgate server (the Action's `server-url`). */
export type CheckText = (name: string, text: string, found?: Pick<ValidateOptions, 'foundAtLegacyPath'>) => Promise<CheckedInput>;

/** What an offline check asks of the engine beyond the limits: a forced version, signature verification. */
export interface OfflineOptions {
  protocolVersion?: string | undefined;
  signatures?: SignaturePolicy | undefined;
  /** The run's ruleset: each card gets the severities its file name selects (overrides). */
  ruleset?: CompiledRulesetData | undefined;
}

export const checkOffline = (limits: RunLimits, options: OfflineOptions = {}): CheckText => async (name, text, found = {}) => {
  const checked = checkCardText(name, text, {
    ...found,
    maxDepth: limits.maxDepth,
    ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
    ...(options.signatures === undefined ? {} : { signatures: options.signatures }),
    ...(options.ruleset === undefined ? {} : { ruleset: rulesetForFile(options.ruleset, name) }),
  });
  // Looked for once the text parsed within the depth limit (the scan recurses as deep as the text nests).
  const overflow = checked.failure ? undefined : outOfRangeNumber(text);
  return overflow ? { name, text, failure: { message: describeOutOfRange(overflow, { withPlace: false }), line: overflow.line, column: overflow.column } } : checked;
};

/** Every input read and checked, in order. */
export const checkInputs = async (
  inputs: readonly CardInput[],
  limits: RunLimits,
  check: CheckText,
  readStdin: CliIO['readStdin'],
): Promise<CheckedInput[]> => {
  const checked: CheckedInput[] = [];
  for (const input of inputs) {
    const read = await readInput(input, limits, readStdin);
    checked.push('text' in read ? await check(read.name ?? input.name, read.text, read.foundAtLegacyPath === true ? { foundAtLegacyPath: true } : {}) : { name: input.name, failure: { message: read.problem } });
  }
  return checked;
};

export type FailOn = 'error' | 'warning' | 'never';
export const failOnValues: readonly FailOn[] = ['error', 'warning', 'never'];

export interface Verdict {
  /** --fail-on: the least finding that fails the run. */
  failOn: FailOn;
  /** --max-warnings: more warnings than this in all fail the run, whatever failOn says (absent: no limit). */
  maxWarnings?: number;
}

/**
 * The exit code of a run and, when it fails, why in one line (the options named as on the command
 * line): 2 when an input could not be checked (unreadable, not found, too big, too deep, not JSON,
 * not fetched), else 1 when the findings fail it, else 0.
 */
export const verdictOf = (inputs: readonly CheckedInput[], verdict: Verdict): { code: 0 | 1 | 2; reason?: string } => {
  const { errors, warnings, unchecked } = totalsOf(inputs);
  if (unchecked > 0) return { code: 2, reason: `${unchecked === 1 ? 'an input' : `${unchecked} inputs`} could not be checked` };
  if (verdict.failOn !== 'never' && errors > 0) return { code: 1, reason: `${errors === 1 ? 'an error fails' : `${errors} errors fail`} the run (--fail-on ${verdict.failOn})` };
  if (verdict.failOn === 'warning' && warnings > 0) return { code: 1, reason: `${warnings === 1 ? 'a warning fails' : `${warnings} warnings fail`} the run (--fail-on warning)` };
  if (verdict.maxWarnings !== undefined && warnings > verdict.maxWarnings) return { code: 1, reason: `too many warnings: ${warnings} (--max-warnings ${verdict.maxWarnings})` };
  return { code: 0 };
};

export const exitCodeOf = (inputs: readonly CheckedInput[], verdict: Verdict): 0 | 1 | 2 => verdictOf(inputs, verdict).code;

/** `--max-warnings N`: a whole number, or -1 for no limit (as eslint takes it); undefined when bad. */
export const parseMaxWarnings = (text: string | undefined): { limit?: number } | undefined => {
  if (text === undefined || text === '-1') return {};
  return /^\d{1,15}$/.test(text) ? { limit: Number(text) } : undefined;
};

/**
 * With --quiet: the errors only (warnings, information and suggestions left out of the report). The
 * warnings are still counted (`quieted`): the report's totals are the ones the verdict
 * (`--max-warnings`) weighs.
 */
export const errorsOnly = (input: CheckedInput): CheckedInput => {
  const result = input.result;
  if (!result) return input;
  const quieted = result.warnings.length + (result.truncated?.warnings ?? 0);
  const { infos: _information, ...kept } = result;
  return {
    ...input,
    ...(quieted > 0 ? { quieted } : {}),
    result: { ...kept, warnings: [], suggestions: [], ...(result.truncated ? { truncated: { ...result.truncated, warnings: 0, suggestions: 0 } } : {}) },
  };
};
