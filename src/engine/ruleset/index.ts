/** Rulesets: a team's policy as data, compiled once and applied by the engine (ValidateOptions.ruleset). */
export { builtinNames, builtinRulesets } from './builtin.ts';
export { compileRuleset, readRuleset, rulesetJsonSchema, rulesetSchema, RULESET_LIMITS, type CompiledRulesetData, type RulesetLoader, type RulesetProblem } from './compile.ts';
export { rulesetForFile } from './apply.ts';
export { compileRulesetText, describeProblems, parseRulesetText, type PlacedProblem } from './parse.ts';
