/**
 * The whole configuration: one zod schema with defaults, made from the settings' declarations
 * (one file per area; config/setting.ts says how one reads); config.ts merges the sources and
 * parses. It is made only when an input sets something, and each section's schema only when the
 * input sets something in it: a section left out is its defaults, taken as they are (what its
 * schema makes of `{}`; test/config.test.ts holds them to it), and so is the whole of an input
 * that sets nothing. Making every schema costs a command 10-20 ms at start-up, most of which
 * configure little.
 */
import * as z from 'zod';
import { auth, keys } from './auth.ts';
import { batch, http, limits } from './limits.ts';
import { monitors } from './monitors.ts';
import { probes } from './probes.ts';
import { metrics, shutdown, topLevelSettings } from './server.ts';
import { defaultsOf, shapeOf } from './setting.ts';
import { agents, audit, reports, store } from './store.ts';
import { cardFetch, rules, signatures, validation } from './validation.ts';
import { webhooks } from './webhooks.ts';

/** Every setting, in the order of config.example.json and of the docs' table. */
export const configSettings = {
  ...topLevelSettings,
  keys,
  limits,
  http,
  batch,
  validation,
  webhooks,
  cardFetch,
  probes,
  monitors,
  reports,
  agents,
  audit,
  signatures,
  rules,
  store,
  metrics,
  auth,
  shutdown,
};

const schema = () =>
  z
    .object(shapeOf(configSettings))
    .strict()
    .superRefine((config, ctx) => {
      // A proxy in front means callers other than the job reach this instance: none of them may go unmetered.
      if (config.mode === 'sidecar' && config.limits.trustedProxies.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['mode'],
          message: 'sidecar mode (--sidecar, CARDGATE_MODE=sidecar) leaves keyless callers unmetered, so it refuses limits.trustedProxies (CARDGATE_TRUSTED_PROXIES): a proxy in front means others reach this instance. Unset the proxies, or run without sidecar mode',
        });
      }
      // With the admin token off, OIDC sign-in is the only way in: a start without it would lock everyone out.
      if (!config.auth.adminToken && config.auth.oidc?.issuer === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['auth', 'adminToken'],
          message: 'auth.adminToken: false (CARDGATE_AUTH_ADMIN_TOKEN=false) switches the admin token off, which leaves no way in without OIDC sign-in: set auth.oidc.issuer (CARDGATE_OIDC_ISSUER) too, or keep the admin token',
        });
      }
    })
    // Sidecar mode is the anonymous plan unlimited: every reader of the limits (quota, headers, pages) agrees.
    .transform((config) => (config.mode === 'sidecar' ? { ...config, limits: { ...config.limits, daily: { ...config.limits.daily, anonymous: -1 } } } : config));

/** The schema, made on the first input that sets anything. */
export const configSchema = z.lazy(schema);

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;

/** Nothing set: every setting's default (an unset one absent), in the schema's order. */
const defaults = defaultsOf(configSettings);

/** The configuration of an input that sets nothing: the defaults as they are (what the schema makes of `{}`), no schema made. */
export const defaultConfig = (): Config => structuredClone(defaults) as Config;
