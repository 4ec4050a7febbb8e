/**
 * Required strings with no content: "" in a 0.x card (its schema asks for the field, not for a value;
 * in 1.0 "" is the unset value and the schema reports it) and whitespace only in any version, a name
 * of spaces being no name. Which strings are required is read from the rule set's own schema, walked
 * along the card: depth is the schema's, every node of the card is visited at most once.
 */
import type * as z from 'zod';
import { fieldName, formatPath, type PathSegment } from '../paths.ts';
import { isRecord } from '../versions.ts';
import type { RuleContext } from './context.ts';

/** The parts of a zod definition the walk reads. */
interface Def {
  type: string;
  innerType?: z.core.$ZodType;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  options?: z.core.$ZodType[];
  discriminator?: string;
  values?: unknown[];
}

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;

/** The member of a discriminated union (the 0.x security scheme) whose literal the value carries. */
function chosenOption(def: Def, value: Record<string, unknown>): z.core.$ZodType | undefined {
  const tag = value[def.discriminator!];
  return def.options!.find((o) => defOf(defOf(o).shape![def.discriminator!]!).values?.includes(tag));
}

export function checkBlank(ctx: RuleContext): void {
  const path: PathSegment[] = [];
  const report = (value: string): void => {
    const at = formatPath(path);
    if (ctx.report.hasFindingAt(at)) return; // the rule that judged the value (url, transport, schema) says it
    const name = fieldName(path);
    const what = value === '' ? 'is empty' : 'holds only whitespace';
    ctx.report.add('field.blank', at, `${name} ${what}: a required field with no value`, `give ${name} a value`);
  };
  const walk = (schema: z.core.$ZodType, value: unknown): void => {
    const def = defOf(schema);
    if (def.type === 'optional') walk(def.innerType!, value);
    else if (def.type === 'array' && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) visit(i, def.element!, value[i]);
    } else if (def.type === 'record' && isRecord(value)) {
      for (const key of Object.keys(value)) visit(key, def.valueType!, value[key]);
    } else if (def.type === 'union' && def.discriminator !== undefined && isRecord(value)) {
      const option = chosenOption(def, value);
      if (option) walk(option, value);
    } else if (def.type === 'object' && isRecord(value)) {
      for (const [key, field] of Object.entries(def.shape!)) {
        if (!Object.hasOwn(value, key)) continue;
        const member = value[key];
        // Only a string the object requires: an optional one is a wrapper, walked as such.
        if (defOf(field).type === 'string') {
          if (typeof member === 'string' && member.trim() === '') {
            path.push(key);
            report(member);
            path.pop();
          }
        } else visit(key, field, member);
      }
    }
  };
  const visit = (segment: PathSegment, schema: z.core.$ZodType, value: unknown): void => {
    path.push(segment);
    walk(schema, value);
    path.pop();
  };
  walk(ctx.parts.card, ctx.card);
}
