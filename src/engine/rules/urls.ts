/**
 * URL rules: endpoint and security URLs must be absolute (error); plain http, placeholders and hosts
 * no client can reach are warnings (a card may be a development card). Parsed with one regex, not
 * `new URL`, which is slower and throws.
 */
import { joinPath } from '../paths.ts';
import { arrayOf, entriesOf, recordOf, reportedEmpty, type RuleContext } from './context.ts';

/** scheme://[userinfo@]host[:port][/path...] */
const absoluteUrl = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:[^@/?#\s]*@)?(\[[^\]/]*\]|[^:/?#\s]+)(?::(\d*))?(?:[/?#]\S*)?$/;
/** gRPC interfaces may be `host:port` (1.0 main after 1.0.1). */
const hostPort = /^[A-Za-z0-9.-]+:\d+$/;
/**
 * Placeholder hosts and template markers. A bracketed marker excludes its opening bracket inside
 * (`<[^<>]*>`, not `<[^>]*>`): the same strings match, but a run of `<` no longer rescans the rest of
 * the URL from every `<` (quadratic: 3 s for 80 000 of them). Every pattern here is linear, so a URL
 * of any length is checked whole (the request body limit bounds it); no length cap hides a placeholder.
 */
const placeholder = /(?:^|[./-])example\.(?:com|org|net)$|your[-_]?(?:domain|agent|host|server|company|url)|placeholder|replace[-_ ]?(?:me|with)|changeme|<[^<>]*>|\{[^{}]*\}|\$\{|%7B|\btodo\b|^x{3,}|\.x{3,}/i;
const loopbackV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const ipv4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Why no client can reach this host, or undefined when it is fine. */
function unreachable(host: string): string | undefined {
  const h = host.toLowerCase();
  if (h === '0.0.0.0' || h === '[::]' || h === '[0:0:0:0:0:0:0:0]') return 'a bind-all address';
  if (h === 'localhost' || h.endsWith('.localhost') || loopbackV4.test(h) || h === '[::1]') return 'loopback';
  if (h.endsWith('.local')) return 'an mDNS name that only resolves on the local network';
  if (!h.includes('.') && !h.startsWith('[') && !ipv4.test(h)) return 'a bare host name such as a container name';
  return undefined;
}

type UrlKind = 'endpoint' | 'security' | 'link';

/** `path` is where the URL is; `name` how messages call it (its own key, e.g. `tokenUrl`). */
function checkUrl(ctx: RuleContext, path: string, name: string, value: unknown, kind: UrlKind, allowHostPort = false): void {
  if (typeof value !== 'string' || reportedEmpty(ctx, path, value)) return; // the schema reports wrong types and unset ones
  const m = absoluteUrl.exec(value);
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
  const why = unreachable(host);
  if (why) ctx.report.add('url.unreachable-host', path, `${name} names ${host}, ${why}; no client can reach it`, `advertise the public host name instead of ${host}`);
}

const flowUrlFields = ['authorizationUrl', 'tokenUrl', 'refreshUrl', 'deviceAuthorizationUrl'];

export function checkUrls(ctx: RuleContext): void {
  const { card } = ctx;
  const v1 = ctx.version === '1.0';
  if (!v1) {
    checkUrl(ctx, 'url', 'url', card.url, 'endpoint');
    arrayOf(card.additionalInterfaces).forEach((x, i) => checkUrl(ctx, `additionalInterfaces[${i}].url`, 'url', recordOf(x)?.url, 'endpoint'));
  } else {
    arrayOf(card.supportedInterfaces).forEach((x, i) => {
      const iface = recordOf(x);
      checkUrl(ctx, `supportedInterfaces[${i}].url`, 'url', iface?.url, 'endpoint', iface?.protocolBinding === 'GRPC');
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
