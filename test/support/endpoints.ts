/** Shared set-up of the endpoint tests: an app with the validation and report routes, keys per plan, sample cards. */
import type { AppDeps } from '../../src/deps.ts';
import type { ConfigInput } from '../../src/config.ts';
import { validateRoutes } from '../../src/api/routes/validate.ts';
import { reportRoutes } from '../../src/api/routes/reports.ts';
import { createKey } from '../../src/features/accounts/api-keys.ts';
import type { Plan } from '../../src/store/contract/accounts.ts';
import { testApp } from './app.ts';

export { sampleCard } from './seed.ts';

/** testApp() with /v1/validate and /reports mounted (unless createApp already mounts them). */
export const endpointsApp = (config: ConfigInput = {}, deps: Partial<AppDeps> = {}) => {
  const t = testApp({ config, deps });
  const mounted = (prefix: string) => t.app.routes.some((r) => r.path.startsWith(prefix));
  if (!mounted('/v1/validate')) t.app.route('/', validateRoutes(t.deps));
  if (!mounted('/reports')) t.app.route('/', reportRoutes(t.deps));

  let accounts = 0;
  /** A new account on `plan` and a key for it; returns the Authorization header. */
  const keyFor = async (plan: Plan): Promise<Record<string, string>> => {
    const id = `acct_test_${++accounts}`;
    await t.store.createAccount({ id, name: `test ${plan}`, plan, created_at: new Date(t.clock.now()).toISOString() });
    const { secret } = await createKey(t.store, id, { name: 'test' }, t.config.keys, t.clock.now());
    return { authorization: `Bearer ${secret}` };
  };
  return { ...t, keyFor };
};

/** Path part of a report_url, to fetch it through app.request(). */
export const pathOf = (url: string): string => new URL(url).pathname;
