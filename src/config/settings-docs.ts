/**
 * config.example.json and the settings table of docs/configuration.md, made from the settings'
 * declarations: `node build/settings-docs.mjs` writes them, test/config/settings-docs.test.ts
 * fails when either differs from what this makes.
 */
import * as z from 'zod';
import type { Members, Setting } from './setting.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every setting with its default, an unset one (or an optional group) as `null`. */
export const exampleConfig = (members: Members): Record<string, Json> => {
  const example: Record<string, Json> = {};
  for (const [key, member] of Object.entries(members)) {
    if (member.kind === 'section') example[key] = exampleConfig(member.members);
    else if (member.kind === 'group' || member.presence === 'unset') example[key] = null;
    else if (member.presence === 'default') example[key] = member.default as Json;
  }
  return example;
};

/** JSON as a person writes it: one member a line, a list on one line. */
const jsonText = (value: Json, indent = ''): string => {
  if (Array.isArray(value)) return `[${value.map((item) => jsonText(item, indent)).join(', ')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  const lines = Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${jsonText(item, inner)}`);
  return lines.length === 0 ? '{}' : `{\n${lines.join(',\n')}\n${indent}}`;
};

/** The text of config.example.json. */
export const exampleJson = (members: Members): string => `${jsonText(exampleConfig(members))}\n`;

const code = (text: string): string => `\`${text}\``;

/** How a variable's text is written, beyond a plain value. */
const envFormat: Record<Setting['type'], string> = {
  string: '',
  number: '',
  boolean: ' (`true`/`false`)',
  list: ' (comma list)',
  map: ' (`name=value,name=value`)',
};

const envCell = (setting: Setting): string => {
  const sources = [...(setting.env ? [`${code(setting.env)}${envFormat[setting.type]}`] : []), ...(setting.flag ? [code(`serve --${setting.flag}`)] : [])];
  return sources.length > 0 ? sources.join(', ') : '–';
};

const defaultCell = (setting: Setting): string => {
  if (setting.presence === 'required') return '– (required in its group)';
  if (setting.presence === 'unset') return setting.unsetMeans ? `unset = ${setting.unsetMeans}` : 'unset';
  return code(typeof setting.default === 'string' ? setting.default : JSON.stringify(setting.default));
};

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  additionalProperties?: JsonSchema;
}

/** `lo-hi`, `≥ lo` or `≤ hi` (zod gives an integer the safe integers' bounds when it has no other). */
const range = (lo: number | undefined, hi: number | undefined, unit = ''): string => {
  const upper = hi !== undefined && hi < Number.MAX_SAFE_INTEGER ? hi : undefined;
  if (lo !== undefined && upper !== undefined) return `${lo}-${upper}${unit}`;
  if (lo !== undefined) return `≥ ${lo}${unit}`;
  return upper !== undefined ? `≤ ${upper}${unit}` : '';
};

/** A value's bounds in a few words: its range, length, pattern or choices (a check zod cannot describe, such as a URL's, is the meaning's to say). */
const boundsText = (schema: JsonSchema): string => {
  if (schema.enum) return schema.enum.map((value) => code(String(value))).join(', ');
  if (schema.type === 'integer' || schema.type === 'number') {
    const lo = schema.minimum ?? (schema.exclusiveMinimum === undefined ? undefined : schema.exclusiveMinimum + (schema.type === 'integer' ? 1 : 0));
    return [schema.type === 'integer' ? 'integer' : 'number', range(lo, schema.maximum)].filter(Boolean).join(' ');
  }
  if (schema.type === 'string') {
    if (schema.pattern !== undefined) return `text matching ${code(schema.pattern)}`;
    const text = schema.minLength === 1 && schema.maxLength === undefined ? 'non-empty text' : ['text', range(schema.minLength, schema.maxLength, ' characters')].filter(Boolean).join(', ');
    return text;
  }
  if (schema.type === 'boolean') return '`true`, `false`';
  if (schema.type === 'array') {
    const items = schema.items ? boundsText(schema.items) : '';
    return [`list of ${items}`, range(schema.minItems, schema.maxItems, ' entries')].filter(Boolean).join(', ');
  }
  if (schema.type === 'object' && schema.additionalProperties) return `map of name → ${boundsText(schema.additionalProperties)}`;
  return '';
};

const boundsCell = (setting: Setting): string => boundsText(z.toJSONSchema(setting.schema(), { io: 'input', unrepresentable: 'any' }) as JsonSchema);

/** A cell's text: a `|` would end the cell. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

const row = (cells: string[]): string => `| ${cells.map(cell).join(' | ')} |`;

/** The table's rows of `members`: a setting's, an optional group's and then its members'. */
const rowsOf = (members: Members, path: string[] = []): string[] =>
  Object.entries(members).flatMap(([key, member]) => {
    const name = code([...path, key].join('.'));
    if (member.kind === 'section') return rowsOf(member.members, [...path, key]);
    if (member.kind === 'group') return [row([name, '–', `unset = ${member.unsetMeans}`, 'the settings below', member.doc]), ...rowsOf(member.members, [...path, key])];
    return [row([name, envCell(member), defaultCell(member), boundsCell(member), member.doc])];
  });

/** The markdown table of every setting: its path, environment variable and flag, default, bounds and meaning. */
export const settingsTable = (members: Members): string =>
  ['| setting | env, flag | default | bounds | meaning |', '|---|---|---|---|---|', ...rowsOf(members)].join('\n');

export const TABLE_START = '<!-- settings table: made from src/config/*.ts by `npm run settings-docs`; edit the declarations, not the table -->';
export const TABLE_END = '<!-- end of settings table -->';

/** `markdown` with the table between its markers replaced by `table`. */
export const withSettingsTable = (markdown: string, table: string): string => {
  const start = markdown.indexOf(TABLE_START);
  const end = markdown.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the page has no settings table markers (${TABLE_START} … ${TABLE_END})`);
  return `${markdown.slice(0, start + TABLE_START.length)}\n${table}\n${markdown.slice(end)}`;
};
