/** The version members of every validation result: the rule set used, why, the other generation's verdict, and the signatures' when verified. */
import type { CardResult, CompatibilityVerdict, SignatureCheck, VersionSource } from '../../engine/index.ts';

/** Optional only because a webhook result whose validation could not run has none of them. */
export interface VersionFields {
  version?: string;
  version_source?: VersionSource;
  compatibility?: Record<string, CompatibilityVerdict>;
  signatures?: SignatureCheck[];
}

export const versionFields = (result: CardResult): VersionFields => ({
  version: result.version,
  version_source: result.versionSource,
  ...(result.compatibility ? { compatibility: result.compatibility } : {}),
  ...(result.signatures ? { signatures: result.signatures } : {}),
});
