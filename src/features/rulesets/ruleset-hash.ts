/**
 * A ruleset's hash: `sha256:<hex>` of its canonical form (RFC 8785 JSON, so the same policy written
 * in YAML or JSON, in any member order, has one hash). Apart from the compiler, so that naming the
 * built-in ruleset (the usual `cardgate validate`) compiles nothing.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** `sha256:<hex>` of the value's canonical JSON; undefined when it has none (a lone surrogate). */
export const rulesetHash = (value: unknown): string | undefined => {
  let canonical: string | undefined;
  try {
    canonical = canonicalize(value);
  } catch {
    return undefined;
  }
  return canonical === undefined ? undefined : `sha256:${createHash('sha256').update(canonical).digest('hex')}`;
};

/** A built-in ruleset's hash by name (`cardgate:strict`...): that of a ruleset extending it and saying nothing else. */
export const builtinRulesetHash = (name: string): string => rulesetHash({ extends: name })!;
