/** The plain-text report (src/engine/text-report.ts): `summary` of validation_mode `cli` and `--format text`. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compatibilityText, formatSummary } from '../../src/engine/text-report.ts';
import type { CardResult } from '../../src/engine/types.ts';

const result = (over: Partial<CardResult> = {}): CardResult => ({
  valid: true,
  errors: [],
  warnings: [],
  score: 100,
  suggestions: [],
  version: '1.0',
  versionSource: 'declared',
  shape: '1.0',
  ...over,
});

test('a valid card with no findings: the verdict, the rules used and why, the counts and the score', () => {
  assert.equal(formatSummary(result()), 'VALID agent card (A2A 1.0 rules, as the card declares; 1.0 shape)\n0 errors, 0 warnings, score 100/100\n');
  assert.equal(
    formatSummary(result({ versionSource: 'forced', version: '0.3.0', shape: '0.3' }), { name: 'card.json' }),
    'card.json: VALID agent card (A2A 0.3.0 rules, as asked in options.protocolVersion; 0.3 shape)\n0 errors, 0 warnings, score 100/100\n',
  );
});

test('every finding on its own line under its heading, counts singular or plural, with what was left out', () => {
  const text = formatSummary(
    result({
      valid: false,
      score: 0,
      versionSource: 'detected',
      shape: 'unknown',
      errors: [{ path: 'name', message: 'is required', rule: 'required' }],
      warnings: [
        { path: 'skills[0].tags', message: 'is empty', rule: 'skill-tags' },
        { path: 'url', message: 'is not https', rule: 'https' },
      ],
      suggestions: [{ type: 'improvement', field: 'description', suggestion: 'say what the agent does' }],
      compatibility: { '0.3.0': { valid: false, errors: 1, warnings: 2 } },
      truncated: { errors: 0, warnings: 3, suggestions: 1 },
    }),
  );
  assert.equal(
    text,
    [
      "INVALID agent card (A2A 1.0 rules, detected from the card's shape; unknown shape)",
      '1 error, 5 warnings, score 0/100',
      'Compatibility: 0.3.0: invalid (1 error, 2 warnings)',
      '',
      'Errors:',
      '  ERROR name: is required [required]',
      '',
      'Warnings:',
      '  WARN  skills[0].tags: is empty [skill-tags]',
      '  WARN  url: is not https [https]',
      '  ... and 3 more, left out',
      '',
      'Suggestions:',
      '  - description: say what the agent does',
      '  ... and 1 more, left out',
      '',
    ].join('\n'),
  );
});

test('errors left out are counted in the total and said under the errors', () => {
  const text = formatSummary(result({ valid: false, score: 0, errors: [{ path: 'a', message: 'm', rule: 'r' }], truncated: { errors: 2, warnings: 0, suggestions: 0 } }));
  assert.match(text, /^3 errors, 0 warnings, score 0\/100$/m);
  assert.match(text, /\[r\]\n {2}\.\.\. and 2 more, left out\n$/);
});

test('compatibility lists each version in order, joined by semicolons', () => {
  assert.equal(
    compatibilityText({ '1.0': { valid: true, errors: 0, warnings: 1 }, '0.3.0': { valid: false, errors: 2, warnings: 0 } }),
    '1.0: valid (0 errors, 1 warning); 0.3.0: invalid (2 errors, 0 warnings)',
  );
});
