/**
 * Card texts whose findings' positions are known, for the positions and format tests: the
 * comments give each finding's line and column.
 */
import { checkCardText, type CheckedInput, type LocatedResult } from '../../../src/engine/formats/index.ts';

/**
 * A 0.3.0 card, valid, with warnings on later lines:
 * - line 4, column 10: `url` (plain http, localhost) -> its string value
 * - line 12, column 58: `skills[1].tags` (empty) -> its `[`
 * - line 13, column 20: `skills[1].security[0].oauth` (undefined scheme) -> the key `"oauth"`
 * - line 15, column 3: `extra_field` (unknown field) -> the key
 */
export const warnedCard = [
  '{', //                                                     1
  '  "protocolVersion": "0.3.0",', //                         2
  '  "name": "Positions",', //                                3
  '  "url": "http://localhost:8000/a2a",', //                 4
  '  "description": "A card with findings on later lines.",', // 5
  '  "version": "1.0.0",', //                                 6
  '  "capabilities": {},', //                                 7
  '  "defaultInputModes": ["text/plain"],', //                8
  '  "defaultOutputModes": ["text/plain"],', //               9
  '  "skills": [', //                                         10
  '    {"id": "a", "name": "A", "description": "d", "tags": ["x"]},', // 11
  '    {"id": "b", "name": "B", "description": "d", "tags": [],', // 12
  '     "security": [{"oauth": []}]}', //                     13
  '  ],', //                                                  14
  '  "extra_field": true,', //                                15
  '  "preferredTransport": "JSONRPC"', //                     16
  '}', //                                                     17
  '',
].join('\n');

/**
 * An invalid 1.0-shaped card: `name` missing (-> the root object, line 1 column 1), and
 * `supportedInterfaces[0].url` not absolute (line 4, column 13).
 */
export const invalidCard = [
  '{',
  '  "description": "No name.",',
  '  "supportedInterfaces": [',
  '    {"url": "relative/path", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}',
  '  ],',
  '  "version": "1",',
  '  "capabilities": {},',
  '  "defaultInputModes": ["text/plain"],',
  '  "defaultOutputModes": ["text/plain"],',
  '  "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]',
  '}',
  '',
].join('\n');

/** Not JSON: a stray comma, the error at line 3, column 1. */
export const notJson = '{\n  "name": "x",\n}\n';


/** The three inputs every format is tested on: a valid card with warnings, an invalid card, a text that is not JSON. */
export const sampleInputs = (): CheckedInput[] => [
  checkCardText('cards/warned.json', warnedCard),
  checkCardText('cards/invalid.json', invalidCard),
  checkCardText('bad.json', notJson),
];

/** A made-up valid 0.3.0 result with no findings, to be given the findings whose exact words a test knows. */
export const madeResult = (more: Partial<LocatedResult> = {}): LocatedResult => ({
  valid: true,
  errors: [],
  warnings: [],
  score: 100,
  suggestions: [],
  version: '0.3.0',
  versionSource: 'declared',
  shape: '0.3',
  ...more,
});
