/**
 * A real OpenID Connect provider in this process on a loopback port, for the sign-in tests: the
 * one docs/auth.md's worked example runs (docs/examples/local-oidc-provider.ts: `oidc-provider`,
 * one confidential client `cardgate`), with people given by the test (their claims: e-mail,
 * groups), whose login signs in whoever the test names next (no form). `follow` walks a browser's
 * redirects through it with a cookie jar of its own, so each sign-in is a new browser.
 */
import { startLocalProvider, type Person } from '../../docs/examples/local-oidc-provider.ts';

export type { Person };

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who the next sign-in at the provider is (a key of the people). */
  signInAs(subject: string): void;
  /** Follows the redirects from `url` until one leads to `stopAt` (the client's redirect URL); that URL. */
  follow(url: string, stopAt: string): Promise<URL>;
  close(): Promise<void>;
}

/** The provider of docs/examples/local-oidc-provider.ts, its login answered by whom the test names next (no page). */
export const startProvider = async (options: { redirectUris: string[]; postLogoutRedirectUris?: string[]; people: Record<string, Person> }): Promise<TestProvider> => {
  let next: string | undefined;
  const provider = await startLocalProvider({ port: 0, clientSecret: 'test-client-secret-0123456789', ...options, login: (_req, _res, signIn) => signIn(next) });
  return {
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    signInAs: (subject) => {
      next = subject;
    },
    async follow(url, stopAt) {
      const jar = new Map<string, string>();
      let at = new URL(url);
      for (let hop = 0; hop < 20; hop++) {
        if (at.href.startsWith(stopAt)) return at;
        const response = await fetch(at, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const set of response.headers.getSetCookie()) {
          const [pair = ''] = set.split(';');
          const eq = pair.indexOf('=');
          jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
        }
        const location = response.headers.get('location');
        if (location === null) throw new Error(`the provider answered ${response.status} at ${at.pathname}: ${(await response.text()).slice(0, 300)}`);
        at = new URL(location, at);
      }
      throw new Error('more than 20 redirects');
    },
    close: provider.close,
  };
};
