/**
 * Run once while the single executable's start-up snapshot is built (src/main.ts): what `validate`
 * and `serve` would otherwise set up on first use (zod's compiled parsers of the configuration and
 * of each protocol version's card schema, the engine's rules, the report formats) is set up here
 * on the rule catalogue's example cards, so the binary starts with it done. Pure work only: nothing
 * is read from the environment, the disk or the clock, and no id is drawn, since whatever this
 * leaves behind is the same in every run of the binary.
 */
import { parseConfig } from '../config.ts';
import { checkCardText, formatResults, outputFormats, type CheckedInput } from '../engine/formats/index.ts';
import { ruleExamples } from '../engine/rule-examples.ts';
import { version } from '../lib/version.ts';

export const warmUp = (): void => {
  const { http } = parseConfig({});
  const checked: CheckedInput[] = Object.entries(ruleExamples).flatMap(([rule, { failing, passing, options }]) =>
    [failing, passing].map((card) => checkCardText(`${rule}.json`, JSON.stringify(card, null, 2), { maxDepth: http.maxJsonDepth, ...options })),
  );
  for (const format of outputFormats) for (const color of [false, true]) formatResults(format, checked, { color, toolVersion: version });
};
