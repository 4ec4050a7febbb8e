/**
 * The output formats of a validation run, shared by the CLI and the API: pure functions from the
 * inputs checked to the text to print or answer. `text` is for people, the others for CI tools.
 */
import { formatGithub } from './github.ts';
import { formatGitlab } from './gitlab.ts';
import type { CheckedInput } from './input.ts';
import { formatJson, formatJsonSummary } from './json.ts';
import type { FormatOptions } from './options.ts';
import { formatJunit } from './junit.ts';
import { formatMarkdown } from './markdown.ts';
import { formatSarif } from './sarif.ts';
import { formatText } from './text.ts';

export type OutputFormat = 'text' | 'json' | 'json-summary' | 'sarif' | 'junit' | 'github' | 'gitlab' | 'markdown';

export type { FormatOptions, RunRuleset } from './options.ts';

const formatters: Record<OutputFormat, (inputs: readonly CheckedInput[], options: FormatOptions) => string> = {
  text: formatText,
  json: formatJson,
  'json-summary': formatJsonSummary,
  sarif: formatSarif,
  junit: formatJunit,
  github: formatGithub,
  gitlab: formatGitlab,
  markdown: formatMarkdown,
};

export const outputFormats: readonly OutputFormat[] = Object.keys(formatters) as OutputFormat[];

export const isOutputFormat = (name: string): name is OutputFormat => Object.hasOwn(formatters, name);

/** The media type of each format, for an HTTP answer or a file. */
export const formatMediaTypes: Record<OutputFormat, string> = {
  text: 'text/plain; charset=utf-8',
  json: 'application/json',
  'json-summary': 'application/json',
  sarif: 'application/sarif+json',
  junit: 'application/xml; charset=utf-8',
  github: 'text/plain; charset=utf-8',
  gitlab: 'application/json',
  markdown: 'text/markdown; charset=utf-8',
};

export const formatResults = (format: OutputFormat, inputs: readonly CheckedInput[], options: FormatOptions = {}): string =>
  formatters[format](inputs, options);

export { checkCardText, type CheckedInput, type CheckTextOptions, UNREADABLE_RULE } from './input.ts';
export { locate, locateCards, type CardInText, type LocatedIssue, type LocatedResult } from '../positions.ts';
