/**
 * A validation run over many inputs, shared by `cardgate validate` and the GitHub Action: each
 * input read (a file, standard input, a URL) within the server's limits (`http.maxBodyBytes`,
 * `http.maxJsonDepth`), checked, and the run's verdict as an exit code.
 */
import { open } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { checkCardText, type CheckedInput } from '../engine/formats/index.ts';
import { totalsOf } from '../engine/formats/input.ts';
import type { SignaturePolicy, ValidateOptions } from '../engine/index.ts';
import { createAddressPolicy } from '../lib/address-policy.ts';
import { fetchCard, foundOnlyAtLegacyPath } from '../lib/fetch-card.ts';
import { rulesetForFile } from '../engine/ruleset/apply.ts';
import type { CompiledRulesetData } from '../engine/ruleset/compile.ts';
import { version } from '../lib/version.ts';
import type { CardInput } from './card-inputs.ts';

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

/** An input's text, or why there is none. */
type ReadInput = { text: string; foundAtLegacyPath?: boolean } | { problem: string };

const tooBig = (limits: RunLimits): string => `larger than ${limits.maxBytes} bytes, the size limit for a card (http.maxBodyBytes)`;

/** A file read up to the limit: a bigger one is refused without reading it whole. */
const readFileWithin = async (file: string, limits: RunLimits): Promise<ReadInput> => {
  let handle;
  try {
    handle = await open(file, 'r');
    const buffer = Buffer.alloc(limits.maxBytes + 1);
    let size = 0;
    for (let read = -1; read !== 0 && size < buffer.length; size += read) {
      ({ bytesRead: read } = await handle.read(buffer, size, buffer.length - size));
    }
    return size > limits.maxBytes ? { problem: tooBig(limits) } : { text: buffer.toString('utf8', 0, size) };
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    return { problem: `cannot read: ${error.code === 'EISDIR' ? 'a directory' : (error.code ?? error.message)}` };
  } finally {
    await handle?.close();
  }
};

/** The CLI fetches what its user asks for, private hosts and other hosts' redirects included, within the time and size limits. */
const userFetch = createAddressPolicy(['*'], { field: 'URL', connections: 'fetches', setting: 'none' });

/** Reads one input: a file, standard input (through `readStdin`, which stops past `maxBytes`), or a URL. */
const readInput = async (input: CardInput, limits: RunLimits, readStdin: (maxBytes: number) => Promise<string | undefined>): Promise<ReadInput> => {
  switch (input.kind) {
    case 'missing':
      return { problem: input.message };
    case 'file':
      return readFileWithin(input.path, limits);
    case 'stdin': {
      const text = await readStdin(limits.maxBytes);
      return text === undefined || Buffer.byteLength(text) > limits.maxBytes ? { problem: tooBig(limits) } : { text };
    }
    case 'url': {
      const fetched = await fetchCard(input.name, {
        policy: userFetch,
        timeoutMs: limits.fetchTimeoutMs,
        maxBytes: limits.maxBytes,
        userAgent: `cardgate/${version}`,
        redirectsToOtherHosts: true,
      });
      return 'text' in fetched ? { text: fetched.text, foundAtLegacyPath: foundOnlyAtLegacyPath(fetched.source) } : { problem: fetched.problem };
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

export const checkOffline = (limits: RunLimits, options: OfflineOptions = {}): CheckText => async (name, text, found = {}) =>
  checkCardText(name, text, {
    ...found,
    maxDepth: limits.maxDepth,
    ...(options.protocolVersion === undefined ? {} : { protocolVersion: options.protocolVersion }),
    ...(options.signatures === undefined ? {} : { signatures: options.signatures }),
    ...(options.ruleset === undefined ? {} : { ruleset: rulesetForFile(options.ruleset, name) }),
  });

/** Every input read and checked, in order. */
export const checkInputs = async (
  inputs: readonly CardInput[],
  limits: RunLimits,
  check: CheckText,
  readStdin: (maxBytes: number) => Promise<string | undefined>,
): Promise<CheckedInput[]> => {
  const checked: CheckedInput[] = [];
  for (const input of inputs) {
    const read = await readInput(input, limits, readStdin);
    checked.push('text' in read ? await check(input.name, read.text, read.foundAtLegacyPath === true ? { foundAtLegacyPath: true } : {}) : { name: input.name, failure: { message: read.problem } });
  }
  return checked;
};

export type FailOn = 'error' | 'warning' | 'never';
export const failOnValues: readonly FailOn[] = ['error', 'warning', 'never'];

export interface Verdict {
  /** --fail-on: the least finding that fails the run. */
  failOn: FailOn;
  /** --max-warnings: more warnings than this in all fail the run, whatever failOn says. */
  maxWarnings?: number;
}

/**
 * The exit code of a run: 2 when an input could not be checked (unreadable, not found, too big,
 * too deep, not JSON, not fetched), else 1 when the findings fail it, else 0.
 */
export const exitCodeOf = (inputs: readonly CheckedInput[], verdict: Verdict): 0 | 1 | 2 => {
  if (inputs.some((input) => input.failure)) return 2;
  const { errors, warnings } = totalsOf(inputs);
  const failed =
    (verdict.failOn === 'error' && errors > 0) ||
    (verdict.failOn === 'warning' && errors + warnings > 0) ||
    (verdict.maxWarnings !== undefined && warnings > verdict.maxWarnings);
  return failed ? 1 : 0;
};

/** With --quiet: the errors only (warnings and suggestions left out of the report; the verdict still counts them). */
export const errorsOnly = (input: CheckedInput): CheckedInput =>
  input.result ? { ...input, result: { ...input.result, warnings: [], suggestions: [], ...(input.result.truncated ? { truncated: { ...input.result.truncated, warnings: 0, suggestions: 0 } } : {}) } } : input;
