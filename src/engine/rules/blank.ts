/**
 * Required strings with no content: "" in a 0.x card (its schema asks for the field, not for a value;
 * in 1.0 "" is the unset value and the schema reports it) and whitespace only in any version, a name
 * of spaces being no name. Which strings are required is read from the rule set's own schema, once:
 * each schema node becomes a walker that visits only the parts of the card holding a required string
 * (compiled on first use; walking the schema per card cost a fifth of the engine's time).
 */
import type * as z from 'zod';
import { fieldName, formatPath, type PathSegment } from '../paths.ts';
import { isRecord } from '../versions.ts';
import type { RuleContext } from './context.ts';

/** The parts of a zod definition the walkers read. */
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

/** Calls `found` for each blank required string under `value`; `path` is the stack of segments down to it. */
type Walker = (value: unknown, path: PathSegment[], found: (value: string) => void) => void;

const defOf = (schema: z.core.$ZodType): Def => schema._zod.def as unknown as Def;
const isBlank = (s: string): boolean => !/\S/.test(s);

/** `null`: nothing below this schema node is a required string. */
const walkers = new WeakMap<z.core.$ZodType, Walker | null>();

function walkerOf(schema: z.core.$ZodType): Walker | null {
  let w = walkers.get(schema);
  if (w === undefined) {
    w = compile(defOf(schema));
    walkers.set(schema, w);
  }
  return w;
}

/** One segment down: the walker of the item, entry or member under `segment`. */
const under = (segment: PathSegment, walk: Walker, value: unknown, path: PathSegment[], found: (value: string) => void): void => {
  path.push(segment);
  walk(value, path, found);
  path.pop();
};

function compile(def: Def): Walker | null {
  switch (def.type) {
    case 'optional':
      return walkerOf(def.innerType!);
    case 'array': {
      const item = walkerOf(def.element!);
      return item && ((v, path, found) => { if (Array.isArray(v)) v.forEach((x, i) => under(i, item, x, path, found)); });
    }
    case 'record': {
      const entry = walkerOf(def.valueType!);
      return entry && ((v, path, found) => { if (isRecord(v)) for (const k of Object.keys(v)) under(k, entry, v[k], path, found); });
    }
    case 'union': {
      // The 0.x security scheme: the member whose `type` literal the value carries.
      const tag = def.discriminator;
      if (tag === undefined) return null;
      const byTag = new Map<unknown, Walker>();
      for (const option of def.options!) {
        const walk = walkerOf(option);
        if (walk) for (const literal of defOf(defOf(option).shape![tag]!).values ?? []) byTag.set(literal, walk);
      }
      return (v, path, found) => { if (isRecord(v)) byTag.get(v[tag])?.(v, path, found); };
    }
    case 'object':
      return compileObject(def.shape!);
    default:
      return null;
  }
}

/** An object: its own required strings (a member that is a bare string; an optional one is a wrapper), then its members' walkers. */
function compileObject(shape: Record<string, z.core.$ZodType>): Walker | null {
  const strings: string[] = [];
  const members: [string, Walker][] = [];
  for (const [key, field] of Object.entries(shape)) {
    if (defOf(field).type === 'string') strings.push(key);
    else {
      const walk = walkerOf(field);
      if (walk) members.push([key, walk]);
    }
  }
  if (strings.length === 0 && members.length === 0) return null;
  return (v, path, found) => {
    if (!isRecord(v)) return;
    for (const key of strings) {
      const s = v[key];
      if (typeof s === 'string' && isBlank(s) && Object.hasOwn(v, key)) {
        path.push(key);
        found(s);
        path.pop();
      }
    }
    for (const [key, walk] of members) if (Object.hasOwn(v, key)) under(key, walk, v[key], path, found);
  };
}

export function checkBlank(ctx: RuleContext): void {
  const path: PathSegment[] = [];
  walkerOf(ctx.parts.card)?.(ctx.card, path, (value) => {
    const at = formatPath(path);
    if (ctx.report.hasFindingAt(at)) return; // the rule that judged the value (url, transport, schema) says it
    const name = fieldName(path);
    ctx.report.add('field.blank', at, `${name} ${value === '' ? 'is empty' : 'holds only whitespace'}: a required field with no value`, `give ${name} a value`);
  });
}
