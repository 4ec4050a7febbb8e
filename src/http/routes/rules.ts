import { Hono } from 'hono';
import { ruleCatalogue, supportedVersions } from '../../card/index.ts';

/** GET /v1/rules: the supported protocol versions and the rule catalogue (id, severity, versions, spec, fix). */
export const rulesRoutes = new Hono().get('/', (c) => c.json({ versions: supportedVersions, rules: ruleCatalogue }));
