/** Runs the zod schema of a rule set and turns zod's issues into catalogue findings with card paths. */
import type * as z from 'zod';
import { cardSchemaParts } from './schemas.ts';
import { clip, fieldName, formatPath, jsonType, lookup, someOf, type PathSegment } from './paths.ts';
import type { Report } from './report.ts';
import type { RuleSetVersion } from './versions.ts';

const typeNames: Record<string, string> = {
  string: 'a string',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  number: 'a number',
};

/** A card value as a message shows it: JSON, cut (a value may be a large object). */
const shownValue = (value: unknown): string => clip(JSON.stringify(value) ?? String(value), 120);

/** Adds one finding per schema violation. */
export function checkSchema(card: unknown, version: RuleSetVersion, report: Report): void {
  const result = cardSchemaParts(version).card.safeParse(card);
  if (result.success) return;
  for (const issue of result.error.issues) {
    // Every schema rule is an error: past the cap it is only counted, its message never spelled out; its
    // path still marks the spot, which the rules that defer to the schema check, or they would count more.
    if (report.roomForErrors) addIssue(card, issue, report);
    else report.add('schema.type', formatPath(issue.path as PathSegment[]), '');
  }
}

function addIssue(card: unknown, issue: z.core.$ZodIssue, report: Report): void {
  const segments = issue.path as PathSegment[];
  const path = formatPath(segments);
  const name = fieldName(segments);
  switch (issue.code) {
    case 'invalid_type': {
      const at = lookup(card, segments);
      if (!at.found) report.add('schema.required', path, `${name} is required`);
      else report.add('schema.type', path, `${name} must be ${typeNames[issue.expected] ?? issue.expected}, not ${jsonType(at.value)}`);
      return;
    }
    case 'invalid_value': {
      const allowed = issue.values.map((v) => JSON.stringify(v)).join(', ');
      report.add('schema.enum', path, `${name} must be one of ${allowed} (got ${shownValue(lookup(card, segments).value)})`);
      return;
    }
    case 'invalid_union': {
      // Only the 0.x security scheme union: zod reports the `type` discriminator.
      const at = lookup(card, segments);
      const allowed = 'options' in issue && Array.isArray(issue.options) ? issue.options.map((o) => JSON.stringify(o)).join(', ') : '';
      if (!at.found) report.add('schema.required', path, `${name} is required (one of ${allowed})`);
      else report.add('schema.enum', path, `${name} must be one of ${allowed} (got ${shownValue(at.value)})`);
      return;
    }
    case 'too_small': {
      const why = issue.origin === 'string' ? 'it is required, and an empty string is the unset value' : 'it is required, so it holds at least one element';
      report.add('schema.non-empty', path, `${name} must not be empty: ${why} (1.0 §5.7)`);
      return;
    }
    case 'custom': {
      report.add('schema.one-of', path, oneofMessage(name, issue, lookup(card, segments).value));
      return;
    }
    default: {
      report.add('schema.type', path, `${name}: ${issue.message}`);
    }
  }
}

/** A 1.0 oneof (security scheme, OAuth flows) that holds not exactly one of its members: what it holds and what it may. */
function oneofMessage(name: string, issue: z.core.$ZodIssueCustom, value: unknown): string {
  const found = value && typeof value === 'object' ? Object.keys(value) : [];
  const members = Array.isArray(issue.params?.members) ? (issue.params.members as string[]) : [];
  const lone = found.length === 1 && !members.includes(found[0]!)
    ? ', which is none of them: clients ignore an unknown field, so nothing is left'
    : '';
  const legacy = found.includes('type') ? ' (this is the 0.x form; 1.0 wraps the fields, e.g. {"httpAuthSecurityScheme": {"scheme": "bearer"}})' : '';
  return `${name} ${issue.message} of ${members.join(', ')}; found ${found.length}${found.length ? ` (${someOf(found)})` : ''}${lone}${legacy}`;
}
