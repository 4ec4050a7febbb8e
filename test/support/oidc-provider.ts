/**
 * A real OpenID Connect provider in this process (`oidc-provider`) on a loopback port, for the
 * sign-in tests: one confidential client (`cardgate`), people given by the test (their claims:
 * e-mail, groups), and an interaction that signs in whoever the test names next (no form) and
 * grants what was asked. `follow` walks a browser's redirects through it with a cookie jar of its
 * own, so each sign-in is a new browser.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface Person {
  email: string;
  email_verified?: boolean;
  groups?: string[] | string;
}

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

const listen = (server: Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

export const startProvider = async (options: { redirectUris: string[]; postLogoutRedirectUris?: string[]; people: Record<string, Person> }): Promise<TestProvider> => {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const clientId = 'cardgate';
  const clientSecret = 'test-client-secret-0123456789';
  let next: string | undefined;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'test', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['test-cookie-key'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'] },
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      // The provider's own pages load web fonts from another host: plain ones here.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx: { body: string }, form: string) => {
          ctx.body = `<!doctype html><html><body>${form}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button></body></html>`;
        },
        postLogoutSuccessSource: (ctx: { body: string }) => {
          ctx.body = '<!doctype html><html><body><p>Signed out.</p></body></html>';
        },
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) => {
      const person = options.people[sub];
      return person && { accountId: sub, claims: async () => ({ sub, email_verified: true, ...person }) };
    },
  } as never);
  const callback = provider.callback();
  handler = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const { prompt, params, session } = details as unknown as { prompt: { name: string }; params: Record<string, string>; session?: { accountId: string } };
      let result: object;
      if (prompt.name === 'login') result = { login: { accountId: next } };
      else {
        const grant = new provider.Grant({ accountId: session!.accountId, clientId: params.client_id! });
        grant.addOIDCScope(params.scope!);
        result = { consent: { grantId: await grant.save() } };
      }
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
    })().catch((e: Error) => {
      res.statusCode = 500;
      res.end(e.message);
    });
  };

  return {
    issuer,
    clientId,
    clientSecret,
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
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
