/**
 * The MCP tools' input and output schemas (zod; the SDK publishes them as JSON Schema in
 * tools/list). Inputs are bounded like the API's: a card's text by http.maxBodyBytes (checked by
 * the door, which knows the setting), a URL or path by MAX_URL_CHARS; outputs are the results the
 * API answers, within its answer bounds.
 */
import * as z from 'zod';
import { CHANGE_CLASSES } from '../../engine/change-classes.ts';
import { supportedVersions } from '../../engine/index.ts';
import { MAX_URL_CHARS } from '../validation/card-result.ts';

const url = z.string().max(MAX_URL_CHARS).describe(`The card's URL (a bare origin means its /.well-known/agent-card.json, then /.well-known/agent.json), fetched within cardFetch.allowedHosts (public addresses by default). At most ${MAX_URL_CHARS} characters.`);

/** Where a card comes from: exactly one of its text, a file (stdio only) or a URL. */
export const cardSource = {
  card: z.string().describe('The card itself: its JSON text (at most http.maxBodyBytes, 1 MiB by default).').optional(),
  path: z.string().max(MAX_URL_CHARS).describe('A card file, read by `cardgate mcp` over stdio only (within its --root directories); the service reads no file.').optional(),
  url: url.optional(),
};
export type CardSourceInput = { card?: string | undefined; path?: string | undefined; url?: string | undefined };

const version = z.enum(supportedVersions as [string, ...string[]]).describe('Judge the card by this A2A version\'s rules instead of the one it declares.');
const ruleset = z.string().max(MAX_URL_CHARS).describe('The ruleset to judge by: cardgate:recommended, cardgate:strict or cardgate:spec (over stdio also a ruleset file). Default: over stdio the nearest .cardgate.yaml, on the service the key\'s account\'s, else the server\'s.');

export const validateInput = { ...cardSource, version: version.optional(), ruleset: ruleset.optional() };
export const diffInput = {
  before: z.object(cardSource).describe('The old card: card, path or url.'),
  after: z.object(cardSource).describe('The new card: card, path or url.'),
  version: version.optional(),
};
export const probeInput = { url };
export const explainInput = { rule: z.string().max(200).describe('A rule id, e.g. url.https or signature.sdk-variant (list_rules lists them).') };
export const listInput = {
  version: version.optional().describe('Only the rules that apply to this A2A version.'),
  severity: z.enum(['error', 'warning', 'info']).optional().describe('Only the rules of this severity.'),
};

const finding = z.looseObject({
  rule: z.string(),
  path: z.string().describe('The card field, as `skills[2].tags`.'),
  message: z.string(),
  line: z.number().optional(),
  column: z.number().optional(),
});

const validated = {
  source: z.string().describe('What was validated: the file, the URL the card was read at, or `card`.'),
  valid: z.boolean(),
  score: z.number().describe('0-100; 0 when invalid.'),
  version: z.string().describe('The rule set the card was judged by.'),
  errors: z.array(finding),
  warnings: z.array(finding),
  infos: z.array(finding).optional(),
  truncated: z.looseObject({}).optional().describe('How many findings of each list the answer bounds left out.'),
  signatures: z.array(z.looseObject({})).optional(),
  report_url: z.string().optional().describe('On the service: the stored report\'s page.'),
};

export const validateOutput = validated;
export const probeOutput = { ...validated, live: z.array(z.looseObject({ id: z.string(), status: z.string(), message: z.string() })).describe('Every live check, passed or not.') };

const diffSide = z.object({ source: z.string(), valid: z.boolean().nullable(), score: z.number().nullable(), report_url: z.string().optional() });
const diffFinding = z.object({ severity: z.enum(['error', 'warning']), rule: z.string(), path: z.string(), message: z.string() });
const counts = { breaking: z.number(), compatible: z.number(), cosmetic: z.number() };

export const diffOutput = {
  before: diffSide,
  after: diffSide,
  verdict: z.object({ before: z.boolean().nullable(), after: z.boolean().nullable(), changed: z.boolean() }),
  score: z.object({ before: z.number().nullable(), after: z.number().nullable(), delta: z.number().nullable() }),
  findings: z.object({
    new: z.array(diffFinding),
    fixed: z.array(diffFinding),
    unchanged: z.array(diffFinding),
    counts: z.object({ new: z.number(), fixed: z.number(), unchanged: z.number() }),
    complete: z.boolean(),
  }),
  card: z.object({
    changes: z.array(z.object({
      op: z.enum(['added', 'removed', 'changed']),
      path: z.string(),
      class: z.enum(CHANGE_CLASSES),
      rule: z.string().describe('The compatibility rule (docs/compatibility.md).'),
      old: z.string().optional(),
      new: z.string().optional(),
    })).describe('Grouped by class, breaking first; at most 200.'),
    total: z.number(),
    counts: z.object(counts),
    class: z.enum(CHANGE_CLASSES).nullable().describe('The most severe class; null when the cards are the same.'),
    complete: z.boolean(),
  }),
};

const ruleSummary = {
  id: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  versions: z.array(z.string()),
  description: z.string(),
};

export const listOutput = { count: z.number(), rules: z.array(z.object(ruleSummary)) };
export const explainOutput = {
  ...ruleSummary,
  spec: z.string().describe('The specification sections (or schema, or practice) it rests on.'),
  fix: z.string(),
  source: z.enum(['schema', 'spec', 'practice']),
  weight: z.number().describe('Points a warning takes off the score.'),
  must: z.boolean().describe('It enforces a MUST: no ruleset may lower it.'),
  examples: z.object({ failing: z.string(), passing: z.string() }).describe('A card that reports the rule and one that does not, as JSON text.'),
  page_url: z.string().optional().describe('The rule\'s page on the service.'),
};

type Shape = Record<string, z.ZodType>;
export type Output<S extends Shape> = z.infer<z.ZodObject<S>>;
export type ValidateOutput = Output<typeof validateOutput>;
export type ProbeOutput = Output<typeof probeOutput>;
export type DiffOutput = Output<typeof diffOutput>;
