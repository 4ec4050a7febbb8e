/**
 * How a setting is declared, once: its bounds (a zod schema), its default, its environment
 * variable, its flag and its line in docs/configuration.md. The config schema (config/schema.ts),
 * the table of variables and flags (config/env-vars.ts), config.example.json and the docs' table
 * (config/settings-docs.ts) are made from the declarations. Schemas are made only when an input sets something in their section
 * (config/schema.ts says why), so a declaration holds its schema as a function and its default as
 * a plain value.
 */
import * as z from 'zod';

/** How a variable's or flag's text becomes the setting's value (config.ts converts it). */
export type SettingType = 'string' | 'number' | 'list' | 'boolean' | 'map';

interface Described {
  /** How the text of its environment variable or flag is read. */
  type: SettingType;
  /** The `CARDGATE_*` environment variable that sets it (a name operators use: never renamed). */
  env?: string;
  /** The `serve` flag that sets it (`port` for `--port`). */
  flag?: string;
  /** Its meaning, one line of markdown in the table of docs/configuration.md (links relative to docs/). */
  doc: string;
}

/** A setting as the loader, the schema and the docs see it. */
export interface Setting<F extends z.ZodType = z.ZodType> extends Described {
  readonly kind: 'setting';
  /** `default`: the value when not set; `unset`: absent when not set; `required`: must be set (in an optional group). */
  readonly presence: 'default' | 'unset' | 'required';
  readonly default?: unknown;
  /** What an unset setting means (the docs' default column). */
  readonly unsetMeans?: string;
  /** Its value's bounds (the docs show them). */
  readonly schema: () => z.ZodType;
  /** Its field in the schema of its section. */
  readonly field: () => F;
}

/** Settings under one key, each section made when an input sets something in it. */
export interface Section<F extends z.ZodType = z.ZodType> {
  readonly kind: 'section';
  readonly members: Members;
  /** What the section is when an input leaves it out (an unset setting absent). */
  readonly defaults: Record<string, unknown>;
  readonly field: () => F;
}

/** Settings that are unset together (`null` or left out) or set together, checked as a whole. */
export interface OptionalGroup<F extends z.ZodType = z.ZodType> {
  readonly kind: 'group';
  readonly members: Members;
  /** What the group unset means, and what it is (the docs' row of the group). */
  readonly unsetMeans: string;
  readonly doc: string;
  readonly field: () => F;
}

export type Declared = Setting | Section | OptionalGroup;
export type Members = Readonly<Record<string, Declared>>;
/** The zod shape the members make. */
export type Shape<M extends Members> = { -readonly [K in keyof M]: ReturnType<M[K]['field']> };

/** An optional value; `null` (as in config.example.json) means unset. */
export const unset = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

/** A setting with a default: `schema` bounds the value (without a default; the declaration adds it). */
export const setting = <S extends z.ZodType>(declaration: Described & { schema: () => S; default: NoInfer<z.core.util.NoUndefined<z.output<S>>> }): Setting<z.ZodDefault<S>> => ({
  kind: 'setting',
  presence: 'default',
  ...declaration,
  field: () => declaration.schema().default(declaration.default) as z.ZodDefault<S>,
});

/** A setting unset unless given; `unsetMeans` says what unset means ("no limit"). */
export const optionalSetting = <S extends z.ZodType>(declaration: Described & { schema: () => S; unsetMeans?: string }) => ({
  kind: 'setting' as const,
  presence: 'unset' as const,
  ...declaration,
  field: () => unset(declaration.schema()),
});

/** A setting that must be given when its optional group is. */
export const requiredSetting = <S extends z.ZodType>(declaration: Described & { schema: () => S }): Setting<S> => ({
  kind: 'setting',
  presence: 'required',
  ...declaration,
  field: declaration.schema,
});

/** The zod shape of `members`: each one's field, made now. */
export const shapeOf = <M extends Members>(members: M): Shape<M> =>
  Object.fromEntries(Object.entries(members).map(([key, member]) => [key, member.field()])) as Shape<M>;

/** What `members` are when an input sets none of them: what their schema makes of `{}` (test/config.test.ts holds them to it). */
export const defaultsOf = (members: Members): Record<string, unknown> => {
  const defaults: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(members)) {
    if (member.kind === 'section') defaults[key] = member.defaults;
    else if (member.kind === 'setting' && member.presence === 'default') defaults[key] = member.default;
  }
  return defaults;
};

/**
 * A section: its schema, made on the first input that sets it (an object, checked strictly), and
 * a fresh copy of its defaults for an input that leaves it out.
 */
export const section = <M extends Members>(members: M) => {
  const defaults = defaultsOf(members);
  const lazySchema = () => z.lazy(() => z.object(shapeOf(members)).strict());
  return {
    kind: 'section' as const,
    members,
    defaults,
    field: () => lazySchema().default(() => structuredClone(defaults) as z.core.util.NoUndefined<z.output<ReturnType<typeof lazySchema>>>),
  };
};

/** An optional group: unset (absent, `null` in the example) or given whole, then checked by `check`. */
export const optionalGroup = <M extends Members>(
  members: M,
  check: { refine: (value: z.output<z.ZodObject<Shape<M>>>) => boolean; message: string; path: string[] },
  described: { unsetMeans: string; doc: string },
) => ({
  kind: 'group' as const,
  members,
  ...described,
  field: () => unset(z.object(shapeOf(members)).strict().refine(check.refine, { message: check.message, path: check.path })),
});
