/** Reading a file a person named: regular files only, bounded, the buffer sized by the file rather than the bound. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readTextFile } from '../../src/lib/read-file.ts';
import { tempDirFactory } from '../support/temp.ts';

const tempDir = tempDirFactory('cardgate-read-file-');

test('a file is read into a buffer of its own size: a bound of 1 TiB reads a small card as one of 1 MiB does', () => {
  const file = path.join(tempDir(), 'card.json');
  const text = JSON.stringify({ name: 'Acme', description: 'é'.repeat(100) });
  fs.writeFileSync(file, text);
  assert.deepEqual(readTextFile(file, { maxBytes: 2 ** 40, what: 'a card' }), { text });
  assert.deepEqual(readTextFile(file, { maxBytes: 1024 * 1024, what: 'a card' }), { text });
});

test('at the bound a file is read; one byte past it, refused', () => {
  const file = path.join(tempDir(), 'card.json');
  fs.writeFileSync(file, 'x'.repeat(100));
  assert.deepEqual(readTextFile(file, { maxBytes: 100, what: 'a card' }), { text: 'x'.repeat(100) });
  assert.deepEqual(readTextFile(file, { maxBytes: 99, what: 'a card' }), { problem: 'larger than 99 bytes, the size limit for a card' });
  fs.writeFileSync(file, '');
  assert.deepEqual(readTextFile(file, { maxBytes: 99, what: 'a card' }), { text: '' });
});

test('a file longer than its size said (a /proc file says 0) is read whole, and still cut past the bound', { skip: process.platform !== 'linux' }, () => {
  const read = readTextFile('/proc/self/status', { maxBytes: 1024 * 1024, what: 'a file' });
  assert.ok('text' in read && read.text.startsWith('Name:') && read.text.length > 100, JSON.stringify(read));
  assert.deepEqual(readTextFile('/proc/self/status', { maxBytes: 50, what: 'a file' }), { problem: 'larger than 50 bytes, the size limit for a file' });
});
