/**
 * URL rules: endpoint and security URLs must be absolute, with a scheme their transport can use
 * (errors); plain http, placeholders, private hosts and hosts no client can reach are warnings (a
 * card may be a development card). Parsed with regexes, not `new URL`, which is slower and throws.
 */
import { joinPath } from '../paths.ts';
import { arrayOf, entriesOf, recordOf, reportedEmpty, type RuleContext } from './context.ts';

/** scheme://[userinfo@]host[:port][/path...] */
const absoluteUrl = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^@/?#\s]*@)?(\[[^\]/]*\]|[^:/?#\s]+)(?::(\d*))?(?:[/?#]\S*)?$/;
/** gRPC interfaces may be `host:port` (1.0 main after 1.0.1). */
const hostPort = /^[A-Za-z0-9.-]+:\d+$/;
/**
 * Placeholder hosts and template markers: `your-` or `your_` and a word, as templates write them
 * (`YOUR-SERVICE.onrender.com`, `YOUR_CLOUD_RUN_URL`), not inside a word (`flyyour-`). A bracketed marker excludes its opening bracket inside
 * (`<[^<>]*>`, not `<[^>]*>`): the same strings match, but a run of `<` no longer rescans the rest of
 * the URL from every `<` (quadratic: 3 s for 80 000 of them). Every pattern here is linear, so a URL
 * of any length is checked whole (the request body limit bounds it); no length cap hides a placeholder.
 */
const placeholder = /(?:^|[./-])example\.(?:com|org|net)$|your(?:domain|agent|host|server|company|url)|(?<![a-z0-9])your[-_][a-z0-9]|placeholder|replace[-_ ]?(?:me|with)|changeme|<[^<>]*>|\{[^{}]*\}|\$\{|%7B|\btodo\b|^x{3,}|\.x{3,}/i;
/** A scheme followed by anything but a port number: `file:///x`, `javascript:alert(1)`, not `localhost:8080`. */
const schemePrefix = /^([A-Za-z][A-Za-z0-9+.-]*):(?!\d)/;
/** The schemes that carry JSON-RPC, HTTP+JSON, gRPC and OAuth endpoints. */
const httpSchemes = new Set(['http', 'https']);
/** Transports whose URLs are judged by url.scheme; a custom transport may use any scheme. */
const judgedTransports = new Set(['JSONRPC', 'GRPC', 'HTTP+JSON']);
const ipv4 = /^(\d{1,3})\.(\d{1,3})\.\d{1,3}\.\d{1,3}$/;
/** Names only a private network resolves: RFC 6761/6762/8375 and the common internal suffixes. */
const internalSuffixes = ['.internal', '.localhost', '.lan', '.home.arpa', '.corp', '.intranet', '.private'];

/** What private network an IPv4 address belongs to, if any. */
function privateV4(a: number, b: number): string | undefined {
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'a private (RFC 1918) address';
  if (a === 169 && b === 254) return 'a link-local address';
  if (a === 100 && b >= 64 && b <= 127) return 'a carrier-grade NAT (RFC 6598) address';
  return undefined;
}

/** Why this host is only reachable inside a private network, or undefined when it is public. */
export function privateHost(host: string): string | undefined {
  const h = host.toLowerCase();
  if (h === 'localhost' || h === '[::1]') return 'loopback';
  const v4 = ipv4.exec(h);
  if (v4) return privateV4(Number(v4[1]), Number(v4[2]));
  if (/^\[f[cd][0-9a-f]{0,2}:/.test(h)) return 'a unique-local IPv6 address';
  if (/^\[fe[89ab][0-9a-f]?:/.test(h)) return 'a link-local IPv6 address';
  const suffix = internalSuffixes.find((s) => h.endsWith(s));
  return suffix === undefined ? undefined : `an internal name (*${suffix})`;
}

/** Why no client can reach this host, or undefined when it is fine. */
function unreachable(host: string): string | undefined {
  const h = host.toLowerCase();
  if (h === '0.0.0.0' || h === '[::]' || h === '[0:0:0:0:0:0:0:0]') return 'a bind-all address';
  if (h.endsWith('.local')) return 'an mDNS name that only resolves on the local network';
  if (!h.includes('.') && !h.startsWith('[') && !ipv4.test(h)) return 'a bare host name such as a container name';
  return undefined;
}

type UrlKind = 'endpoint' | 'security' | 'link';

/**
 * url.scheme: a security URL must be http(s); an endpoint URL too when its transport is a core one
 * (`transport`; a custom transport may use its own scheme). True when it reported.
 */
function checkScheme(ctx: RuleContext, path: string, name: string, value: string, kind: UrlKind, transport: unknown): boolean {
  if (kind === 'link' || (kind === 'endpoint' && !(typeof transport === 'string' && judgedTransports.has(transport)))) return false;
  const scheme = schemePrefix.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined || httpSchemes.has(scheme)) return false;
  const carries = kind === 'security' ? 'an OAuth / OpenID endpoint' : `the ${transport as string} transport`;
  ctx.report.add('url.scheme', path, `${name} uses the scheme ${JSON.stringify(scheme)}, which ${carries} cannot use (http or https only): ${JSON.stringify(value)}`);
  return true;
}

/**
 * `path` is where the URL is; `name` how messages call it (its own key, e.g. `tokenUrl`);
 * `transport` what an endpoint URL serves (a gRPC one may also be `host:port`).
 */
function checkUrl(ctx: RuleContext, path: string, name: string, value: unknown, kind: UrlKind, transport?: unknown): void {
  if (typeof value !== 'string' || reportedEmpty(ctx, path, value)) return; // the schema reports wrong types and unset ones
  if (checkScheme(ctx, path, name, value, kind, transport)) return;
  const m = absoluteUrl.exec(value);
  const allowHostPort = kind === 'endpoint' && transport === 'GRPC';
  if (!m) {
    if (allowHostPort && hostPort.test(value)) return;
    if (kind === 'link') {
      if (!value.startsWith('data:')) ctx.report.add('url.link-invalid', path, `${name} is not an absolute URL: ${JSON.stringify(value)}`);
    } else {
      ctx.report.add('url.absolute', path, `${name} must be an absolute URL, got ${JSON.stringify(value)}`);
    }
    return;
  }
  const scheme = m[1]!.toLowerCase();
  const host = m[2]!;
  if (scheme === 'http') ctx.report.add('url.https', path, `${name} uses plain http: ${value}`, `write "${'https' + value.slice(4)}"`);
  else if (kind === 'link' && scheme !== 'https') ctx.report.add('url.link-invalid', path, `${name} is not an http(s) URL: ${JSON.stringify(value)}`);
  if (placeholder.test(host) || placeholder.test(value)) {
    ctx.report.add('url.placeholder', path, `${name} looks like a placeholder: ${value}`, `replace ${JSON.stringify(value)} with the URL where the agent is served`);
    return;
  }
  const inside = privateHost(host);
  if (inside) {
    ctx.report.add('url.private-host', path, `${name} names ${host}, ${inside}; clients outside that network cannot reach it`, `advertise the public host name instead of ${host}, or declare the network internal in a ruleset`);
    return;
  }
  const why = unreachable(host);
  if (why) ctx.report.add('url.unreachable-host', path, `${name} names ${host}, ${why}; no client can reach it`, `advertise the public host name instead of ${host}`);
}

const flowUrlFields = ['authorizationUrl', 'tokenUrl', 'refreshUrl', 'deviceAuthorizationUrl'];

export function checkUrls(ctx: RuleContext): void {
  const { card } = ctx;
  const v1 = ctx.version === '1.0';
  if (!v1) {
    // 0.x: the main url serves preferredTransport (JSONRPC when absent).
    checkUrl(ctx, 'url', 'url', card.url, 'endpoint', card.preferredTransport ?? 'JSONRPC');
    arrayOf(card.additionalInterfaces).forEach((x, i) => {
      const iface = recordOf(x);
      checkUrl(ctx, `additionalInterfaces[${i}].url`, 'url', iface?.url, 'endpoint', iface?.transport);
    });
  } else {
    arrayOf(card.supportedInterfaces).forEach((x, i) => {
      const iface = recordOf(x);
      checkUrl(ctx, `supportedInterfaces[${i}].url`, 'url', iface?.url, 'endpoint', iface?.protocolBinding);
    });
  }
  checkUrl(ctx, 'provider.url', 'url', recordOf(card.provider)?.url, 'link');
  checkUrl(ctx, 'documentationUrl', 'documentationUrl', card.documentationUrl, 'link');
  checkUrl(ctx, 'iconUrl', 'iconUrl', card.iconUrl, 'link');
  for (const [name, s] of entriesOf(card.securitySchemes)) {
    const base = joinPath('securitySchemes', name);
    // 1.0 wraps the scheme in one member; 0.x has the fields directly.
    const [inner, at] = v1 ? firstMember(s, base) : [recordOf(s), base];
    if (!inner) continue;
    checkUrl(ctx, joinPath(at, 'openIdConnectUrl'), 'openIdConnectUrl', inner.openIdConnectUrl, 'security');
    checkUrl(ctx, joinPath(at, 'oauth2MetadataUrl'), 'oauth2MetadataUrl', inner.oauth2MetadataUrl, 'security');
    for (const [flowName, f] of entriesOf(inner.flows)) {
      const flow = recordOf(f);
      if (!flow) continue;
      const flowPath = joinPath(joinPath(at, 'flows'), flowName);
      for (const field of flowUrlFields) checkUrl(ctx, joinPath(flowPath, field), field, flow[field], 'security');
    }
  }
}

function firstMember(s: unknown, base: string): [Record<string, unknown> | undefined, string] {
  const first = entriesOf(s)[0];
  return first ? [recordOf(first[1]), joinPath(base, first[0])] : [undefined, base];
}
