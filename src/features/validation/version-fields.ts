/** The version members of every validation result: the rule set used, why, and the other generation's verdict. */
import type { CardResult, CompatibilityVerdict, VersionSource } from '../../engine/index.ts';

/** Optional only because a webhook result whose validation could not run has none of them. */
export interface VersionFields {
  version?: string;
  version_source?: VersionSource;
  compatibility?: Record<string, CompatibilityVerdict>;
}

export const versionFields = (result: CardResult): VersionFields => ({
  version: result.version,
  version_source: result.versionSource,
  ...(result.compatibility ? { compatibility: result.compatibility } : {}),
});
