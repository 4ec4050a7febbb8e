/**
 * The route groups the served app loads on the first request that needs them (src/app.ts): the
 * admin API (its monitors included), the OpenID Connect sign-in, the MCP endpoint, and the API
 * description with its page. Their modules hold most of the routes' schemas, the OIDC client and
 * the MCP SDK (each tens of ms to set up), which no other request needs; tests that build the
 * whole app at once take them from here.
 */
export { adminRoutes } from './routes/admin.ts';
export { authRoutes } from './routes/auth.ts';
export { docsRoutes } from './routes/docs.ts';
export { mcpRoutes } from './routes/mcp.ts';

