/**
 * The MCP server of `cardgate mcp` (stdio) and of the service's /mcp (Streamable HTTP): five tools
 * with input and output schemas, each answering structured content and a short text. What differs
 * between the two is the door the tools go through (McpDoor): over stdio the engine runs in
 * process and reads the files it is given; on the service a tool call is a validation of the
 * caller's, keyed, limited and stored like POST /v1/validate, and no file is read.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ruleCatalogue } from '../../engine/index.ts';
import type { RuleId } from '../../engine/catalogue.ts';
import { ruleExamples } from '../../engine/rule-examples.ts';
import { version } from '../../lib/version.ts';
import * as s from './schemas.ts';

/** A card as a tool gets it; the door reads it, or says why it cannot. */
export type CardSource = s.CardSourceInput;

export interface ValidateAsk {
  version?: string | undefined;
  ruleset?: string | undefined;
}

/** What the tools need of where they run. */
export interface McpDoor {
  validate(source: CardSource, ask: ValidateAsk): Promise<s.ValidateOutput>;
  diff(before: CardSource, after: CardSource, ask: ValidateAsk): Promise<s.DiffOutput>;
  probe(url: string): Promise<s.ProbeOutput>;
  /** Where rule pages are (the service's public URL), if anywhere. */
  rulesUrl?: string;
}

/** A tool's failure as the caller should read it: the tool answers it as an error result with this message. */
export class ToolError extends Error {}

/** The one source a tool call names, or its error. */
export const oneSource = (source: CardSource, what = 'the card'): 'card' | 'path' | 'url' => {
  const given = (['card', 'path', 'url'] as const).filter((k) => source[k] !== undefined);
  if (given.length !== 1) throw new ToolError(`give ${what} as exactly one of card (its JSON text), path (a file, over stdio) or url${given.length > 1 ? `, not ${given.join(' and ')}` : ''}`);
  return given[0]!;
};

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const firstFinding = (r: { errors: Array<{ rule: string; path: string; message: string }>; warnings: Array<{ rule: string; path: string; message: string }> }): string => {
  const f = r.errors[0] ?? r.warnings[0];
  return f === undefined ? '' : ` First: ${f.rule} at ${f.path}: ${f.message}`;
};

const validatedText = (r: s.ValidateOutput): string =>
  `${r.source}: ${r.valid ? 'valid' : 'invalid'} (A2A ${r.version}), score ${r.score}, ${plural(r.errors.length, 'error')}, ${plural(r.warnings.length, 'warning')}.${firstFinding(r)}${r.report_url ? ` Report: ${r.report_url}` : ''}`;

const diffText = (d: s.DiffOutput): string => {
  const { card, findings } = d;
  const classes = `${card.counts.breaking} breaking, ${card.counts.compatible} compatible, ${card.counts.cosmetic} cosmetic`;
  const breaking = card.changes.filter((c) => c.class === 'breaking').slice(0, 3).map((c) => `${c.rule} at ${c.path}`);
  return `${card.class === null ? 'The cards are the same' : card.class === 'breaking' ? 'Breaking changes' : `${card.class[0]!.toUpperCase()}${card.class.slice(1)} changes only`} (${classes}); ${findings.counts.new} new, ${findings.counts.fixed} fixed findings.${breaking.length ? ` Breaking: ${breaking.join('; ')}.` : ''}`;
};

const probeText = (p: s.ProbeOutput): string => {
  const failed = p.live.filter((c) => c.status === 'fail' || c.status === 'warn');
  return `${validatedText(p)} Live checks: ${p.live.length - failed.length} of ${p.live.length} passed${failed.length ? `; ${failed.slice(0, 3).map((c) => `${c.id}: ${c.message}`).join('; ')}` : ''}.`;
};

/** A tool's answer: the structured result and its one-line text. */
const answer = <T extends Record<string, unknown>>(structured: T, text: string): CallToolResult => ({ structuredContent: structured, content: [{ type: 'text', text }] });

const listRules = ({ version: v, severity }: { version?: string | undefined; severity?: string | undefined }) => {
  const rules = ruleCatalogue
    .filter((r) => (v === undefined || r.versions.includes(v)) && (severity === undefined || r.severity === severity))
    .map(({ id, severity: level, versions, description }) => ({ id, severity: level, versions, description }));
  return { count: rules.length, rules };
};

const explainRule = (rule: string, rulesUrl: string | undefined) => {
  const info = ruleCatalogue.find((r) => r.id === rule);
  if (!info) throw new ToolError(`no rule "${rule.slice(0, 200)}": list_rules lists the ${ruleCatalogue.length} rules`);
  const examples = ruleExamples[rule as RuleId]!;
  return {
    ...info,
    examples: { failing: JSON.stringify(examples.failing, null, 2), passing: JSON.stringify(examples.passing, null, 2) },
    ...(rulesUrl === undefined ? {} : { page_url: `${rulesUrl}/${encodeURIComponent(rule)}` }),
  };
};

/** A new MCP server whose tools go through `door` (one per stdio process; one per request on the service, which keeps no session). */
export const mcpServer = (door: McpDoor): McpServer => {
  const server = new McpServer({ name: 'cardgate', version }, { instructions: 'cardgate validates A2A agent cards: validate_card finds errors and warnings, diff_cards says whether a change breaks clients, probe_agent checks the live agent read-only, explain_rule and list_rules explain the rules.' });
  const readOnly = { readOnlyHint: true, openWorldHint: true };
  server.registerTool('validate_card', {
    title: 'Validate an A2A agent card',
    description: 'Validate an A2A agent card (0.2.x, 0.3.0 or 1.0) given as its JSON text, a file (stdio only) or a URL: errors, warnings and a 0-100 quality score, each finding with its rule (explain_rule says why and how to fix it) and the card field.',
    inputSchema: s.validateInput,
    outputSchema: s.validateOutput,
    annotations: readOnly,
  }, async ({ version: v, ruleset, ...source }) => {
    const result = await door.validate(source, { version: v, ruleset });
    return answer(result, validatedText(result));
  });
  server.registerTool('diff_cards', {
    title: 'Compare two A2A agent cards',
    description: 'Compare an old and a new agent card: every change of the card classed breaking, compatible or cosmetic (a skill, interface or capability removed, a URL changed... break clients), and the findings the new card adds or fixes.',
    inputSchema: s.diffInput,
    outputSchema: s.diffOutput,
    annotations: readOnly,
  }, async ({ before, after, version: v }) => {
    const result = await door.diff(before, after, { version: v });
    return answer(result, diffText(result));
  });
  server.registerTool('probe_agent', {
    title: 'Probe the agent behind a card',
    description: 'Fetch an agent\'s card by URL and probe the agent read-only (card delivery and caching, TLS, reachability, the declared protocol version, error shapes, the extended card): the card\'s findings plus every live check. Sends no message.',
    inputSchema: s.probeInput,
    outputSchema: s.probeOutput,
    annotations: readOnly,
  }, async ({ url }) => {
    const result = await door.probe(url);
    return answer(result, probeText(result));
  });
  server.registerTool('explain_rule', {
    title: 'Explain a cardgate rule',
    description: 'What a rule checks, why (the specification section), how to fix a finding of it, and a failing and a passing example card.',
    inputSchema: s.explainInput,
    outputSchema: s.explainOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, ({ rule }) => {
    const explained = explainRule(rule, door.rulesUrl);
    return answer(explained, `${explained.id} (${explained.severity}, ${explained.spec}): ${explained.description} Fix: ${explained.fix}`);
  });
  server.registerTool('list_rules', {
    title: 'List cardgate\'s rules',
    description: 'The rules cardgate checks agent cards against, with their severity and the A2A versions they apply to; optionally of one version or severity.',
    inputSchema: s.listInput,
    outputSchema: s.listOutput,
    annotations: { readOnlyHint: true, openWorldHint: false },
  }, (ask) => {
    const listed = listRules(ask);
    return answer(listed, `${plural(listed.count, 'rule')}: ${listed.rules.map((r) => r.id).join(', ')}`);
  });
  return server;
};
