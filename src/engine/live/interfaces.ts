/**
 * The interfaces a card declares, as a probe reaches them: 0.x `url` (with `preferredTransport`,
 * JSONRPC when absent) and `additionalInterfaces`, 1.0 `supportedInterfaces`; each with its binding
 * and the Major.Minor version it speaks (0.x: the card's protocolVersion).
 */
import { isRecord } from '../versions.ts';

export type Binding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | 'other';

export interface DeclaredInterface {
  /** The card field of its url (`supportedInterfaces[1].url`). */
  path: string;
  url: string;
  binding: Binding;
  /** As declared (`JSONRPC`, a custom URI). */
  declaredBinding: string;
  /** Major.Minor (`0.3`, `1.0`). */
  version: string;
  tenant?: string;
}

/** Interfaces probed at most; the rest are left out (the request budget bounds them anyway). */
export const MAX_INTERFACES = 6;

const bindingOf = (name: string): Binding => {
  const upper = name.trim().toUpperCase();
  if (upper === 'JSONRPC' || upper === 'JSON-RPC') return 'JSONRPC';
  if (upper === 'HTTP+JSON' || upper === 'REST') return 'HTTP+JSON';
  if (upper === 'GRPC') return 'GRPC';
  return 'other';
};

/** `0.3.0` → `0.3`, `1.0` → `1.0`; undefined for what is not a version. */
export const majorMinor = (version: unknown): string | undefined => {
  if (typeof version !== 'string') return undefined;
  const m = /^(\d{1,3})\.(\d{1,3})(?:\.\d{1,6})?$/.exec(version.trim());
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
};

/** Whether a Major.Minor version speaks 1.0's method names and routes (1.0 and later). */
export const isV1 = (version: string): boolean => Number(version.split('.')[0]) >= 1;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

export const declaredInterfaces = (card: unknown): DeclaredInterface[] => {
  if (!isRecord(card)) return [];
  const found: DeclaredInterface[] = [];
  const add = (path: string, url: unknown, binding: unknown, version: string, tenant?: unknown) => {
    const href = text(url);
    if (href === undefined) return;
    const declaredBinding = text(binding) ?? 'JSONRPC';
    const entry: DeclaredInterface = { path, url: href, binding: bindingOf(declaredBinding), declaredBinding, version, ...(text(tenant) ? { tenant: text(tenant)! } : {}) };
    if (!found.some((f) => f.url === entry.url && f.binding === entry.binding && f.version === entry.version)) found.push(entry);
  };
  if (Array.isArray(card.supportedInterfaces)) {
    card.supportedInterfaces.forEach((iface, i) => {
      if (isRecord(iface)) add(`supportedInterfaces[${i}].url`, iface.url, iface.protocolBinding ?? iface.transport, majorMinor(iface.protocolVersion) ?? '1.0', iface.tenant);
    });
  }
  const cardVersion = majorMinor(card.protocolVersion);
  // A 1.0 card keeping the 0.x url serves 0.3 clients there.
  const legacyVersion = cardVersion !== undefined && !isV1(cardVersion) ? cardVersion : '0.3';
  add('url', card.url, card.preferredTransport, legacyVersion);
  if (Array.isArray(card.additionalInterfaces)) {
    card.additionalInterfaces.forEach((iface, i) => {
      if (isRecord(iface)) add(`additionalInterfaces[${i}].url`, iface.url, iface.transport, legacyVersion);
    });
  }
  return found.slice(0, MAX_INTERFACES);
};

/** Whether the card declares an authenticated extended card (0.x flag, 1.0 capability). */
export const declaresExtendedCard = (card: unknown): boolean =>
  isRecord(card) && (card.supportsAuthenticatedExtendedCard === true || (isRecord(card.capabilities) && card.capabilities.extendedAgentCard === true));

/** Whether the card declares streaming. */
export const declaresStreaming = (card: unknown): boolean => isRecord(card) && isRecord(card.capabilities) && card.capabilities.streaming === true;
