/** The formats' names and media types, as the CLI and the API look them up. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMediaTypes, isOutputFormat, outputFormats } from '../../../src/engine/formats/index.ts';

test('a format name is one of the formats, not any key an object has', () => {
  assert.deepEqual(outputFormats, ['text', 'json', 'json-summary', 'sarif', 'junit', 'github', 'gitlab', 'markdown']);
  for (const name of outputFormats) assert.equal(isOutputFormat(name), true, name);
  for (const name of ['xml', 'JSON', '', 'toString', '__proto__']) assert.equal(isOutputFormat(name), false, name);
});

test('each format\'s media type: the formats that share one, by media type', () => {
  const byType: Record<string, string[]> = {};
  for (const name of outputFormats) (byType[formatMediaTypes[name]] ??= []).push(name);
  assert.deepEqual(byType, {
    'text/plain; charset=utf-8': ['text', 'github'],
    'application/json': ['json', 'json-summary', 'gitlab'],
    'application/sarif+json': ['sarif'],
    'application/xml; charset=utf-8': ['junit'],
    'text/markdown; charset=utf-8': ['markdown'],
  });
  assert.deepEqual(Object.keys(formatMediaTypes), outputFormats);
});
