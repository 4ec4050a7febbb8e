import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn, setTimeout as delay } from 'node:timers/promises';
import { batchedLines, createLogger, heldUntilReleased } from '../../src/lib/log.ts';

const capture = (times: number[]) => {
  const lines: string[] = [];
  let i = 0;
  const log = createLogger((line) => lines.push(line), () => times[Math.min(i++, times.length - 1)]!);
  return { log, lines };
};

test('a line is time, level, msg, then the fields, as one JSON object', () => {
  const { log, lines } = capture([Date.UTC(2026, 10, 23, 5, 0, 0, 123)]);
  log.info('request', { request_id: 'r-1', path: '/a"b\n', status: 200, ms: 1.5, skipped: undefined });
  assert.equal(lines[0], '{"time":"2026-11-23T05:00:00.123Z","level":"info","msg":"request","request_id":"r-1","path":"/a\\"b\\n","status":200,"ms":1.5}');
});

test('no fields, empty fields, and fields of undefined values give the bare line', () => {
  const { log, lines } = capture([0]);
  log.warn('a');
  log.error('b "quoted"', {});
  log.info('c', { gone: undefined });
  assert.deepEqual(lines.map((l) => JSON.parse(l)), [
    { time: '1970-01-01T00:00:00.000Z', level: 'warn', msg: 'a' },
    { time: '1970-01-01T00:00:00.000Z', level: 'error', msg: 'b "quoted"' },
    { time: '1970-01-01T00:00:00.000Z', level: 'info', msg: 'c' },
  ]);
});

test('each line has the time of its own millisecond; a field named like a fixed one wins when parsed', () => {
  const { log, lines } = capture([1000, 1000, 1001]);
  log.info('x');
  log.info('y');
  log.info('z', { level: 'custom' });
  assert.deepEqual(lines.map((l) => JSON.parse(l).time), ['1970-01-01T00:00:01.000Z', '1970-01-01T00:00:01.000Z', '1970-01-01T00:00:01.001Z']);
  assert.equal(JSON.parse(lines[2]!).level, 'custom');
});

test('lines of several event-loop turns are written together once the flush interval has passed, in order', async () => {
  const writes: string[] = [];
  const line = batchedLines((text) => writes.push(text), 200);
  line('{"n":1}');
  await nextTurn();
  line('{"n":2}');
  await nextTurn();
  assert.deepEqual(writes, [], 'nothing written turn by turn');
  await delay(300);
  assert.deepEqual(writes, ['{"n":1}\n{"n":2}\n']);
  line('{"n":3}');
  await delay(300);
  assert.deepEqual(writes, ['{"n":1}\n{"n":2}\n', '{"n":3}\n']);
});

test('close() writes what waits and leaves no exit listener behind; a held writer released leaves none either', () => {
  const before = process.listenerCount('exit');
  const writes: string[] = [];
  const lines = Array.from({ length: 5 }, () => batchedLines((text) => writes.push(text)));
  const held = heldUntilReleased((text) => writes.push(text), true);
  assert.equal(process.listenerCount('exit'), before + 6);
  lines.forEach((line, i) => line(`{"n":${i}}`));
  held.write('{"held":true}\n');
  for (const line of lines) line.close();
  held.release();
  assert.equal(process.listenerCount('exit'), before);
  assert.deepEqual(writes, ['{"n":0}\n', '{"n":1}\n', '{"n":2}\n', '{"n":3}\n', '{"n":4}\n', '{"held":true}\n']);
});
