/** Transports and interfaces: conflicts, missing preferredTransport, non-core bindings, 1.0 interface versions. */
import { interfacePatchVersions, interfaceVersions, since, supportedVersionsText } from '../versions.ts';
import { clip } from '../paths.ts';
import { arrayOf, recordOf, reportedEmpty, type RuleContext } from './context.ts';

const coreTransports = new Set(['JSONRPC', 'GRPC', 'HTTP+JSON']);
const uri = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

/** `name` is how the message calls the field: preferredTransport, transport or protocolBinding. */
function checkTransportName(ctx: RuleContext, path: string, name: string, value: unknown): void {
  if (typeof value !== 'string' || coreTransports.has(value) || reportedEmpty(ctx, path, value)) return;
  const upper = value.toUpperCase();
  const core = upper === 'JSON-RPC' || upper === 'JSONRPC' ? 'JSONRPC' : upper === 'REST' || upper === 'HTTP' || upper === 'HTTP+JSON' ? 'HTTP+JSON' : upper === 'GRPC' ? 'GRPC' : undefined;
  if (ctx.version === '1.0' && !core && uri.test(value)) return; // 1.0 §5.8: custom bindings are named by a URI
  const fix = core ? `write "${core}"` : ctx.version === '1.0' ? 'use JSONRPC, GRPC or HTTP+JSON, or name the custom binding by a URI' : 'use JSONRPC, GRPC or HTTP+JSON';
  ctx.report.add('transport.non-core', path, `${name} ${JSON.stringify(value)} is not one of JSONRPC, GRPC, HTTP+JSON`, fix);
}

function checkV0(ctx: RuleContext): void {
  const { card } = ctx;
  if (!since(ctx.version, '0.2.4')) return;
  if (ctx.version === '0.3.0' && !Object.hasOwn(card, 'preferredTransport')) {
    ctx.report.add('transport.preferred.missing', 'preferredTransport', 'preferredTransport is missing (0.3.0 text: REQUIRED); clients assume JSONRPC');
  }
  checkTransportName(ctx, 'preferredTransport', 'preferredTransport', card.preferredTransport);
  // Transport declared per URL: the main url first, then each additional interface.
  const byUrl = new Map<string, { transport: string; at: string }>();
  if (typeof card.url === 'string') {
    const t = typeof card.preferredTransport === 'string' ? card.preferredTransport : 'JSONRPC';
    byUrl.set(card.url, { transport: t, at: 'url' });
  }
  arrayOf(card.additionalInterfaces).forEach((x, i) => {
    const iface = recordOf(x);
    if (!iface) return;
    const at = `additionalInterfaces[${i}]`;
    checkTransportName(ctx, `${at}.transport`, 'transport', iface.transport);
    if (typeof iface.url !== 'string' || typeof iface.transport !== 'string') return;
    const earlier = byUrl.get(iface.url);
    if (!earlier) byUrl.set(iface.url, { transport: iface.transport, at });
    else if (earlier.transport !== iface.transport) {
      ctx.report.add('transport.url-conflict', `${at}.transport`,
        // Cut: the earlier transport is repeated in the finding of every later conflicting interface.
        `transport ${clip(iface.transport, 120)} for ${clip(iface.url, 120)} conflicts with ${earlier.at}, which declares it with ${clip(earlier.transport, 120)}`);
    }
  });
}

function checkV1(ctx: RuleContext): void {
  arrayOf(ctx.card.supportedInterfaces).forEach((x, i) => {
    const iface = recordOf(x);
    if (!iface) return;
    checkTransportName(ctx, `supportedInterfaces[${i}].protocolBinding`, 'protocolBinding', iface.protocolBinding);
    const v = iface.protocolVersion;
    const at = `supportedInterfaces[${i}].protocolVersion`;
    if (typeof v !== 'string' || interfaceVersions.includes(v) || reportedEmpty(ctx, at, v)) return;
    const majorMinor = interfacePatchVersions.get(v);
    if (majorMinor) ctx.report.add('interface.protocolVersion.patch', at, `protocolVersion "${v}" carries a patch number; write "${majorMinor}"`, `write "protocolVersion": "${majorMinor}"`);
    else ctx.report.add('protocolVersion.unsupported', at, `protocolVersion "${v}" is not an A2A version; interfaces declare one of ${interfaceVersions.join(', ')} (rule sets: ${supportedVersionsText()})`);
  });
}

export function checkTransports(ctx: RuleContext): void {
  if (ctx.version === '1.0') checkV1(ctx);
  else checkV0(ctx);
}
