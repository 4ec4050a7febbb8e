/** The CARDGATE_* environment variables and the `serve` flags: the setting each one sets, and how its text is read; made from the declarations. */
import { configSettings } from './schema.ts';
import type { Members, Setting, SettingType } from './setting.ts';

/** Each declared setting with its path, in declaration order. */
export const declaredSettings = (members: Members, path: string[] = []): Array<{ path: string[]; setting: Setting }> =>
  Object.entries(members).flatMap(([key, member]) => (member.kind === 'setting' ? [{ path: [...path, key], setting: member }] : declaredSettings(member.members, [...path, key])));

export type SettingSources = Record<string, { path: string[]; type: SettingType }>;

/** The environment variables of `members` and the config path each sets. */
export const envTable = (members: Members): SettingSources =>
  Object.fromEntries(declaredSettings(members).flatMap(({ path, setting }) => (setting.env ? [[setting.env, { path, type: setting.type }]] : [])));

/** The `serve` flags of `members` (without their `--`) and the config path each sets. */
export const flagTable = (members: Members): SettingSources =>
  Object.fromEntries(declaredSettings(members).flatMap(({ path, setting }) => (setting.flag ? [[setting.flag, { path, type: setting.type }]] : [])));

export const envVars = envTable(configSettings);
export const configFlags = flagTable(configSettings);
