import { Hono } from 'hono';
import { ruleCatalogue, supportedVersions, versionSelection } from '../../engine/index.ts';

/** GET /v1/rules: the supported protocol versions, how the version is chosen, and the rule catalogue (id, severity, versions, spec, fix). */
export const rulesRoutes = new Hono().get('/', (c) => c.json({ versions: supportedVersions, version_selection: versionSelection, rules: ruleCatalogue }));
