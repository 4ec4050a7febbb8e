// What @hono/zod-openapi takes from zod's namespace (`z`): ZodType, to which it adds `.openapi()`.
// Its `import { z } from "zod"` would keep all of zod in the bundles (every locale: ~0.7 MB, ~40 ms
// of start-up); build.mjs points that one import here, so the rest of zod is shaken as before.
import { ZodType } from 'zod';

export const z = { ZodType };
