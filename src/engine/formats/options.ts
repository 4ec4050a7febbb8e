/** What the output formats are given beside the inputs checked. */

/**
 * The ruleset a run was judged by, as its outputs name it: a file (its path as the run shows it)
 * with its hash, or the built-in recommended one (the catalogue's severities: no ruleset file).
 * The hash is the one a server gives the same ruleset (`ruleset.hash` of its results).
 */
export type RunRuleset = { id: 'file'; file: string; hash: string } | { id: 'cardgate:recommended'; hash: string };

export interface FormatOptions {
  /** ANSI colours (`text` only). */
  color?: boolean;
  /** The tool's version, which SARIF names. */
  toolVersion?: string;
  /** Where the rule pages are (`https://cardgate.example/rules`): SARIF links each rule's help to its page. */
  rulesUrl?: string;
  /** The ruleset that judged the run (`text`, `json`, `json-summary` name it), when the caller knows it. */
  ruleset?: RunRuleset;
  /** The run's exit code and, when it fails, why (`json-summary`), when the caller knows them. */
  verdict?: { code: number; reason?: string };
}

/** How the text format names the ruleset: `Ruleset: .cardgate.yaml (sha256:…)`. */
export const rulesetLine = (ruleset: RunRuleset): string =>
  ruleset.id === 'file' ? `Ruleset: ${ruleset.file} (${ruleset.hash})` : 'Ruleset: built-in recommended (cardgate:recommended)';
