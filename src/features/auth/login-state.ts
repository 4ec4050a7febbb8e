/**
 * What a sign-in keeps between sending the browser to the provider and its coming back: `state`,
 * `nonce` and the PKCE verifier, in a short-lived cookie signed with a key derived from the client
 * secret (so every instance sharing the configuration reads it, and nothing is stored). Each
 * `state` is taken once: this instance remembers the ones used until they expire (a bounded set;
 * the provider takes each code once besides).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface LoginState {
  state: string;
  nonce: string;
  verifier: string;
  /** Epoch ms after which the sign-in must start again. */
  expires: number;
}

/** How long a person has at the provider before the sign-in must start again. */
export const LOGIN_STATE_MS = 10 * 60_000;
/** A sealed state is ~250 characters; anything far longer is not one. */
const MAX_SEALED_CHARS = 1024;
/** Remembered states at most (older ones are forgotten first: a flood of sign-ins cannot grow memory). */
const MAX_USED_STATES = 10_000;
const PART = /^[A-Za-z0-9_-]{1,200}$/;

export class LoginStates {
  private readonly key: Buffer;
  private readonly used = new Map<string, number>();

  constructor(clientSecret: string) {
    this.key = createHmac('sha256', 'cardgate login state').update(clientSecret).digest();
  }

  seal(state: LoginState): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  /** The state sealed in `sealed` when it is one of ours, unexpired at `now`, never taken, and names `state`; it is then taken. */
  take(sealed: string | undefined, state: string | undefined, now: number): LoginState | string {
    if (sealed === undefined || sealed.length > MAX_SEALED_CHARS) return 'the sign-in cookie is missing: start the sign-in again (are cookies allowed for this site?)';
    const [body = '', mac = ''] = sealed.split('.');
    const expected = Buffer.from(this.mac(body));
    if (Buffer.byteLength(mac) !== expected.length || !timingSafeEqual(Buffer.from(mac), expected)) return 'the sign-in cookie is not one this service made';
    const login = parse(body);
    if (login === undefined) return 'the sign-in cookie is not one this service made';
    if (login.expires <= now) return 'the sign-in took too long: start it again';
    if (state === undefined || state.length !== login.state.length || !timingSafeEqual(Buffer.from(state), Buffer.from(login.state))) return 'the state does not match this browser\'s sign-in';
    this.forgetExpired(now);
    if (this.used.has(login.state)) return 'this sign-in was completed already';
    if (this.used.size >= MAX_USED_STATES) this.used.delete(this.used.keys().next().value!);
    this.used.set(login.state, login.expires);
    return login;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }

  private forgetExpired(now: number): void {
    for (const [state, expires] of this.used) {
      if (expires > now) break; // in insertion order, which is nearly expiry order
      this.used.delete(state);
    }
  }
}

const parse = (body: string): LoginState | undefined => {
  try {
    const v = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<LoginState>;
    return typeof v.state === 'string' && PART.test(v.state) && typeof v.nonce === 'string' && PART.test(v.nonce) && typeof v.verifier === 'string' && PART.test(v.verifier) && typeof v.expires === 'number'
      ? { state: v.state, nonce: v.nonce, verifier: v.verifier, expires: v.expires }
      : undefined;
  } catch {
    return undefined;
  }
};
