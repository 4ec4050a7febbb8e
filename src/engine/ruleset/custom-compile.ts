/** A custom rule of a ruleset: its schema, and its compilation into a CompiledCustomRule (or the problem, with where). */
import * as z from 'zod';
import { JSONPath } from 'jsonpath-plus';
import { casings, customFunctions } from './custom.ts';
import { patternProblem } from './pattern-check.ts';
import { fragmentProblem } from './schema-fragment.ts';
import type { CompiledCustomRule, CustomFunction, RuleLevel } from '../types.ts';

export type { CompiledCustomRule } from '../types.ts';

export const MAX_GIVEN_LENGTH = 200;
/** Recursive descents (`..`) in one `given`: each walks the whole card. */
export const MAX_DESCENTS = 2;

export const customRuleSchema = z
  .strictObject({
    given: z.string().min(1).max(MAX_GIVEN_LENGTH).meta({ description: 'A JSONPath over the card (jsonpath-plus, safe mode: no script runs), e.g. `$.skills[*]`.' }),
    then: z.strictObject({
      field: z.string().min(1).max(100).optional().meta({ description: 'A member of each value `given` selects (`@key`: each of its keys), instead of the value itself.' }),
      function: z.enum(customFunctions),
      functionOptions: z.record(z.string(), z.unknown()).optional(),
    }),
    message: z.string().max(500).optional().meta({ description: 'With {{path}}, {{value}} and {{error}} (what the function found).' }),
    severity: z.enum(['off', 'info', 'warning', 'warn', 'error']).optional().meta({ description: 'Default: warning.' }),
    versions: z.array(z.string().max(10)).max(20).optional().meta({ description: 'The rule sets it applies to (0.2.0..0.2.6, 0.3.0, 1.0); default: all.' }),
    description: z.string().max(1000).optional(),
    documentationUrl: z.url().max(500).optional(),
  })
  .meta({ id: 'CustomRule' });

type CustomRuleDefinition = z.infer<typeof customRuleSchema>;
type Compiled = { rule: CompiledCustomRule } | { problem: string; at: (string | number)[] };

const optionsAt = ['then', 'functionOptions'];

/** Why `options` do not suit `fn`, or undefined. */
function optionsProblem(fn: CustomFunction, o: Record<string, unknown>): string | undefined {
  switch (fn) {
    case 'pattern': {
      const patterns = [o.match, o.notMatch].filter((p) => p !== undefined);
      if (patterns.length === 0 || patterns.some((p) => typeof p !== 'string')) return 'pattern takes "match" and/or "notMatch", regular expressions as strings';
      return patterns.map((p) => patternProblem(p as string)).find((why) => why !== undefined);
    }
    case 'enumeration':
      return Array.isArray(o.values) && o.values.length > 0 && o.values.length <= 200 && o.values.every((v) => v === null || typeof v !== 'object') ? undefined : 'enumeration takes "values", 1 to 200 strings, numbers or booleans';
    case 'length':
      return (o.min !== undefined || o.max !== undefined) && [o.min, o.max].every((n) => n === undefined || (typeof n === 'number' && n >= 0)) ? undefined : 'length takes "min" and/or "max", numbers';
    case 'casing':
      return typeof o.type === 'string' && Object.hasOwn(casings, o.type) ? undefined : `casing takes "type", one of ${Object.keys(casings).join(', ')}`;
    case 'schema': {
      const patterns: string[] = [];
      return fragmentProblem(o.schema, patterns) ?? patterns.map(patternProblem).find((why) => why !== undefined);
    }
    case 'xor':
      return Array.isArray(o.properties) && o.properties.length >= 2 && o.properties.length <= 20 && o.properties.every((p) => typeof p === 'string') ? undefined : 'xor takes "properties", 2 to 20 member names';
    default:
      return Object.keys(o).length === 0 ? undefined : `${fn} takes no options`;
  }
}

/** Why the JSONPath is refused: too many recursive descents, or it does not parse. */
function givenProblem(given: string): string | undefined {
  if (!given.startsWith('$')) return 'given must be a JSONPath starting with $';
  if (given.split('..').length - 1 > MAX_DESCENTS) return `given has more than ${MAX_DESCENTS} recursive descents (..)`;
  try {
    JSONPath({ path: given, json: { a: [1] }, eval: 'safe' });
  } catch (err) {
    return `given is not a JSONPath this validator runs: ${(err as Error).message}`;
  }
  return undefined;
}

export function compileCustomRule(id: string, d: CustomRuleDefinition): Compiled {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) return { problem: 'a custom rule id is letters, digits, ".", "_" and "-"', at: [] };
  const given = givenProblem(d.given);
  if (given) return { problem: given, at: ['given'] };
  const options = d.then.functionOptions ?? {};
  const why = optionsProblem(d.then.function, options);
  if (why) return { problem: why, at: optionsAt };
  const severity: RuleLevel = d.severity === 'warn' ? 'warning' : (d.severity ?? 'warning');
  const message = d.message ?? `${d.description ?? id}: {{path}} {{error}}`;
  return {
    rule: {
      id, given: d.given, function: d.then.function, options, severity, message,
      fix: d.description ?? `See ${d.documentationUrl ?? 'the ruleset'}.`,
      ...(d.then.field === undefined ? {} : { field: d.then.field }),
      ...(d.versions === undefined ? {} : { versions: d.versions }),
    },
  };
}
