/** Clean cards (no errors, no warnings, score 100) to derive rule cases from. */

export type Card = Record<string, unknown>;

export const clean03 = (): Card => ({
  protocolVersion: '0.3.0',
  name: 'Trip Planner',
  description: 'Plans trips.',
  url: 'https://agent.travel.test/a2a',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [{ url: 'https://agent.travel.test/rest', transport: 'HTTP+JSON' }],
  version: '1.2.0',
  provider: { organization: 'Travel Co', url: 'https://travel.test' },
  documentationUrl: 'https://travel.test/docs',
  iconUrl: 'https://travel.test/icon.png',
  capabilities: { streaming: true },
  securitySchemes: {
    oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://auth.travel.test/token', scopes: { 'trips:read': 'Read trips' } } } },
  },
  security: [{ oauth: ['trips:read'] }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
  skills: [
    { id: 'plan', name: 'Plan a trip', description: 'Plans a trip.', tags: ['travel'], examples: ['Plan 3 days in Rome'] },
    { id: 'book', name: 'Book', description: 'Books.', tags: ['booking'], examples: ['Book the 9:00 train'], security: [{ oauth: ['trips:read'] }] },
  ],
});

/** base64url of {"alg":"ES256","kid":"key-1","typ":"JOSE"} */
export const goodProtected = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'key-1', typ: 'JOSE' })).toString('base64url');

export const clean10 = (): Card => ({
  name: 'Trip Planner',
  description: 'Plans trips.',
  supportedInterfaces: [
    { url: 'https://agent.travel.test/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: 'https://agent.travel.test/a2a/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ],
  version: '1.2.0',
  provider: { organization: 'Travel Co', url: 'https://travel.test' },
  documentationUrl: 'https://travel.test/docs',
  iconUrl: 'https://travel.test/icon.png',
  capabilities: { streaming: true, extendedAgentCard: true },
  securitySchemes: {
    oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://auth.travel.test/token', scopes: { 'trips:read': 'Read trips' } } } } },
  },
  securityRequirements: [{ schemes: { oauth: { list: ['trips:read'] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['application/json'],
  skills: [
    { id: 'plan', name: 'Plan a trip', description: 'Plans a trip.', tags: ['travel'], examples: ['Plan 3 days in Rome'] },
    { id: 'book', name: 'Book', description: 'Books.', tags: ['booking'], examples: ['Book the 9:00 train'], securityRequirements: [{ schemes: { oauth: { list: [] } } }] },
  ],
  signatures: [{ protected: goodProtected, signature: 'c2lnbmF0dXJl' }],
});
