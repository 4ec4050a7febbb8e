/**
 * The exact other-generation form of a field, for the hints of `field.legacy-0x` and `field.from-1.0`
 * (1.0 renamed and reshaped some 0.x fields). Each function takes the card's own value and returns JSON text to paste.
 */
import { arrayOf, entriesOf, recordOf, stringOf } from './context.ts';

const json = (v: unknown): string => JSON.stringify(v);

/** Items a hint spells out; a hint repeated for several fields never copies a long list whole. */
const SHOWN_ITEMS = 3;

/** JSON of the first few items converted, then how many more take the same form. */
function fewItems<T>(items: readonly T[], convert: (item: T) => unknown): string {
  const more = items.length - SHOWN_ITEMS;
  const shown = json(items.slice(0, SHOWN_ITEMS).map(convert));
  return more > 0 ? `${shown} (and ${more} more in the same form)` : shown;
}

/** 0.x `security: [{name: [scopes]}]` → 1.0 `securityRequirements: [{schemes: {name: {list: [scopes]}}}]`. */
export function toV1Requirements(security: unknown): string {
  return fewItems(arrayOf(security), (req) => ({
    schemes: Object.fromEntries(entriesOf(req).map(([name, scopes]) => [name, { list: arrayOf(scopes) }])),
  }));
}

/** 1.0 `securityRequirements` → 0.x `security`. */
export function toV0Requirements(requirements: unknown): string {
  return fewItems(arrayOf(requirements), (req) =>
    Object.fromEntries(entriesOf(recordOf(req)?.schemes).map(([name, l]) => [name, arrayOf(recordOf(l)?.list)])),
  );
}

const v1Wrapper: Record<string, string> = {
  apiKey: 'apiKeySecurityScheme',
  http: 'httpAuthSecurityScheme',
  oauth2: 'oauth2SecurityScheme',
  openIdConnect: 'openIdConnectSecurityScheme',
  mutualTLS: 'mtlsSecurityScheme',
};

/** 0.x `{type: "http", scheme: "bearer"}` → 1.0 `{"httpAuthSecurityScheme": {"scheme": "bearer"}}` (`in` becomes `location`). */
export function toV1Scheme(scheme: Record<string, unknown>): string {
  const type = stringOf(scheme.type) ?? '';
  const wrapper = Object.hasOwn(v1Wrapper, type) ? v1Wrapper[type] : 'httpAuthSecurityScheme';
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(scheme)) {
    if (k === 'type') continue;
    body[k === 'in' ? 'location' : k] = v;
  }
  return json({ [wrapper as string]: body });
}

/** 0.x `url` + `preferredTransport` + `additionalInterfaces` → 1.0 `supportedInterfaces`. */
export function toV1Interfaces(card: Record<string, unknown>): string {
  const main = stringOf(card.url);
  const list: { url: unknown; protocolBinding: unknown; protocolVersion: string }[] = [];
  if (main !== undefined) list.push({ url: main, protocolBinding: stringOf(card.preferredTransport) ?? 'JSONRPC', protocolVersion: '1.0' });
  for (const i of arrayOf(card.additionalInterfaces)) {
    const r = recordOf(i);
    if (!r || (r.url === main && r.transport === (card.preferredTransport ?? 'JSONRPC'))) continue;
    list.push({ url: r.url, protocolBinding: r.transport, protocolVersion: '1.0' });
  }
  return fewItems(list, (i) => i);
}

/** 1.0 `supportedInterfaces` → 0.x `url` + `preferredTransport` (+ `additionalInterfaces`). */
export function toV0Endpoint(interfaces: unknown): string {
  const list = arrayOf(interfaces).map(recordOf).filter((r) => r !== undefined);
  const first = list[0];
  const endpoint = json({ url: first?.url ?? 'https://<host>/a2a', preferredTransport: first?.protocolBinding ?? 'JSONRPC' }).slice(1, -1);
  if (list.length <= 1) return endpoint;
  return `${endpoint},"additionalInterfaces":${fewItems(list, (r) => ({ url: r.url, transport: r.protocolBinding }))}`;
}
