/**
 * An OpenID Connect provider on this machine, to try cardgate's sign-in without a company's
 * provider (docs/auth.md, "A worked example on one machine"). It is `oidc-provider`, a
 * devDependency (the sign-in tests use the same set-up), with one confidential client `cardgate`
 * and three people in the groups cardgate's example maps to roles. Signing in picks a person on a
 * plain page: no password, so never expose it beyond loopback.
 *
 *   node --import tsx docs/examples/local-oidc-provider.ts     # from a clone, after npm ci
 *
 * Settings (environment): PORT (9000), CARDGATE_URL (http://127.0.0.1:8080), CLIENT_SECRET.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export interface Person {
  email: string;
  email_verified?: boolean;
  groups?: string[] | string;
}

export interface LocalProviderOptions {
  /** 0: any free port. */
  port: number;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /** People by subject, with the claims the provider gives (verified e-mail unless said otherwise). */
  people: Record<string, Person>;
  /** Answers a sign-in's login prompt (/interaction/<uid>): who signs in, given to `signIn`. The consent that follows is given at once. */
  login: (req: IncomingMessage, res: ServerResponse, signIn: (subject: string | undefined) => Promise<void>) => void | Promise<void>;
}

export interface LocalProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

const listen = (server: Server, port: number): Promise<number> =>
  new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));

export const startLocalProvider = async (options: LocalProviderOptions): Promise<LocalProvider> => {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server = createServer((req, res) => handler(req, res));
  const issuer = `http://127.0.0.1:${await listen(server, options.port)}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const clientId = 'cardgate';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'local', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: [`local-cookie-key-${Math.random()}`] },
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
      const person = Object.hasOwn(options.people, sub) ? options.people[sub] : undefined;
      return person && { accountId: sub, claims: async () => ({ sub, email_verified: true, ...person }) };
    },
  } as never);
  const callback = provider.callback();
  /** One step of a sign-in: its login (asked of `options.login`), then its consent to what the client asked. */
  const interaction = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params, session } = details as unknown as { prompt: { name: string }; params: Record<string, string>; session?: { accountId: string } };
    if (prompt.name === 'login') {
      return options.login(req, res, (subject) => provider.interactionFinished(req, res, { login: { accountId: subject } }, { mergeWithLastSubmission: true }));
    }
    const grant = new provider.Grant({ accountId: session!.accountId, clientId: params.client_id! });
    grant.addOIDCScope(params.scope!);
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
  };
  handler = (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void interaction(req, res).catch((e: Error) => {
      res.statusCode = 500;
      res.end(e.message);
    });
  };
  return { issuer, clientId, clientSecret: options.clientSecret, close: () => new Promise((resolve) => server.close(() => resolve())) };
};

/** The people of the worked example, one per role of its roleMapping. */
export const examplePeople: Record<string, Person> = {
  alice: { email: 'alice@example.com', groups: ['cardgate-admins'] },
  bob: { email: 'bob@example.com', groups: ['cardgate-editors'] },
  carol: { email: 'carol@example.com', groups: ['cardgate-viewers'] },
};

const escaped = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a person signs in on: one button per person. */
const choosePerson = (people: Record<string, Person>) => async (req: IncomingMessage, res: ServerResponse, signIn: (subject: string | undefined) => Promise<void>) => {
  if (req.method === 'POST') {
    let body = '';
    for await (const chunk of req) if ((body += chunk).length > 1000) break;
    const who = new URLSearchParams(body).get('who') ?? '';
    return signIn(Object.hasOwn(people, who) ? who : undefined);
  }
  const buttons = Object.entries(people).map(([subject, p]) => `<p><button name="who" value="${escaped(subject)}">${escaped(subject)} (${escaped(p.email)}, ${escaped([p.groups ?? []].flat().join(', '))})</button></p>`);
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.end(`<!doctype html><html><body><h1>Local provider: sign in as</h1><form method="post">${buttons.join('')}</form></body></html>`);
};

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const cardgate = process.env.CARDGATE_URL ?? 'http://127.0.0.1:8080';
  const provider = await startLocalProvider({
    port: Number(process.env.PORT ?? 9000),
    clientSecret: process.env.CLIENT_SECRET ?? 'local-client-secret',
    redirectUris: [`${cardgate}/auth/callback`],
    postLogoutRedirectUris: [`${cardgate}/dashboard`],
    people: examplePeople,
    login: choosePerson(examplePeople),
  });
  process.stdout.write(`issuer ${provider.issuer}, client ${provider.clientId}, secret ${provider.clientSecret}; people: ${Object.keys(examplePeople).join(', ')}\n`);
}
