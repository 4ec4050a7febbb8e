/**
 * The MCP tools on the service (/mcp): each call that validates is a validation of the caller's,
 * made by the use cases of POST /v1/validate and POST /v1/probe (the key's account, its ruleset
 * and trusted keys, the daily quota charged per card, a report stored, the answer bounds), so the
 * door adds no bound of its own but the card's size, checked before its text becomes a body. No
 * file is read: a `path` is a tool error.
 */
import type { AppDeps } from '../../deps.ts';
import { isApiError } from '../../errors/api-error.ts';
import { parseJsonObject } from '../../lib/json.ts';
import type { Caller } from '../limits/caller.ts';
import type { QuotaWindow } from '../limits/daily-quota.ts';
import { probeOperations } from '../probes/operations.ts';
import { diffReports } from '../reports/diff.ts';
import { namedRuleset } from '../rulesets/rule-listing.ts';
import { validationOperations } from '../validation/operations.ts';
import { diffOutputOf, probeOutputOf, validateOutputOf } from './results.ts';
import { oneSource, ToolError, type CardSource, type McpDoor, type ValidateAsk } from './server.ts';

type Json = Record<string, unknown>;

/** What comes before a card's text in the body it is validated as. */
const CARD_PREFIX = '{"agent_card":';

/** Findings placed in the card's own text: those on the body's first line sit after CARD_PREFIX there. */
const inCardText = (answer: Json): Json => {
  const shift = (list: unknown) => (Array.isArray(list) ? list.map((f: Json) => (f.line === 1 && typeof f.column === 'number' ? { ...f, column: f.column - CARD_PREFIX.length } : f)) : list);
  return { ...answer, errors: shift(answer.errors), warnings: shift(answer.warnings), ...(answer.infos === undefined ? {} : { infos: shift(answer.infos) }) };
};

/** Who calls, as the route identified them (key, plan, address), and where the quota's window goes. */
export interface McpCaller {
  caller: Caller;
  noteWindow: (window: QuotaWindow) => void;
}

/** An API refusal as the tool's error, naming the tool's arguments rather than the body's members. */
const asToolError = (e: unknown): never => {
  if (isApiError(e)) throw new ToolError(e.message.replace(/\bagent_url\b/g, 'url').replace(/\bagent_card\b/g, 'card'));
  throw e;
};

export const serviceDoor = (deps: AppDeps, who: McpCaller): McpDoor => {
  const { http } = deps.config;
  const validations = validationOperations(deps);

  /** The body of POST /v1/validate for the card a tool names; a card too large or not a JSON object is the tool's error. */
  const bodyOf = (source: CardSource, ask: ValidateAsk): string => {
    const kind = oneSource(source);
    const options = JSON.stringify({ include_score: true, ...(ask.version === undefined ? {} : { protocolVersion: ask.version }) });
    if (kind === 'path') throw new ToolError('path: the service reads no file; send the card\'s JSON text as card, or its url (cardgate mcp over stdio reads files)');
    if (kind === 'url') return `{"agent_url":${JSON.stringify(source.url)},"options":${options}}`;
    const text = source.card!.replace(/^\uFEFF/, '');
    if (Buffer.byteLength(text) > http.maxBodyBytes) throw new ToolError(`card: larger than ${http.maxBodyBytes} bytes, the size limit for a card (http.maxBodyBytes)`);
    const parsed = parseJsonObject(text, http.maxJsonDepth - 1, 'card');
    if ('problem' in parsed) throw new ToolError(parsed.problem);
    // The text parsed alone as one JSON object, so it is exactly one member's value here.
    return `${CARD_PREFIX}${text},"options":${options}}`;
  };

  const validated = async (source: CardSource, ask: ValidateAsk): Promise<Json> => {
    const text = bodyOf(source, ask);
    const ruleset = ask.ruleset === undefined ? undefined : await namedRuleset(deps, ask.ruleset, who.caller.account?.id).catch(asToolError);
    const { body } = await validations.validateOne({ text, startedAt: performance.now(), ...who, ...(ruleset ? { ruleset } : {}) }).catch(asToolError);
    const answer = JSON.parse(body) as Json;
    return source.card === undefined ? answer : inCardText(answer);
  };

  const sourceName = (source: CardSource, answer: Json): string => {
    const fetched = answer.source as { url?: unknown } | undefined;
    return typeof fetched?.url === 'string' ? fetched.url : source.url ?? 'card';
  };

  return {
    rulesUrl: `${deps.urls.publicUrl}/rules`,
    validate: async (source, ask) => {
      const answer = await validated(source, ask);
      return validateOutputOf(sourceName(source, answer), answer, answer.report_url as string);
    },
    diff: async (before, after, ask) => {
      oneSource(before, 'before');
      oneSource(after, 'after');
      const [a, b] = [await validated(before, ask), await validated(after, ask)];
      const found = await diffReports(deps.store, deps.config, deps.clock.now(), a.report_id as string, b.report_id as string).catch(asToolError);
      const side = (source: CardSource, answer: Json, s: { valid: boolean | null; score: number | null }) => ({ source: sourceName(source, answer), valid: s.valid, score: s.score, report_url: answer.report_url as string });
      return diffOutputOf(side(before, a, found.before), side(after, b, found.after), found.diff);
    },
    probe: async (url) => {
      const text = JSON.stringify({ url, options: { include_score: true } });
      const { body } = await probeOperations(deps).probeOne({ text, startedAt: performance.now(), ...who }).catch(asToolError);
      const answer = JSON.parse(body) as Json;
      return probeOutputOf(sourceName({ url }, answer), answer, (answer.live as { checks?: unknown } | undefined)?.checks, answer.report_url as string);
    },
  };
};
