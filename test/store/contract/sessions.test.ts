/** The Store contract: sessions of people signed in through OpenID Connect, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionRecord } from '../../../src/store/contract/sessions.ts';
import { openFileStore } from '../../../src/store/file/file-store.ts';
import type { StoreTransfer, TransferRow } from '../../../src/store/transfer.ts';
import { FakeClock, FakeScheduler } from '../../support/fake-time.ts';
import { tempDirFactory } from '../../support/temp.ts';
import { T0, iso } from '../fixtures/records.ts';
import { contractSuite, engines, walkPages } from './engines.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const session = (id: string, subject: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  subject,
  email: `${subject}@example.com`,
  role: 'editor',
  created_at: iso(T0),
  last_seen_at: iso(T0),
  idle_until: iso(T0 + 30 * MINUTE),
  expires_at: iso(T0 + 8 * HOUR),
  revoked_at: null,
  ...over,
});

contractSuite('sessions', (withStore) => {
  withStore('sessions: created once, used while in force (last use and idle end moved), unknown ids find nothing', async (s) => {
    assert.equal(await s.createSession(session('h1', 'alice')), true);
    assert.equal(await s.createSession(session('h1', 'mallory', { role: 'admin' })), false, 'an id taken is refused, the session kept');
    const used = await s.useSession('h1', iso(T0 + 10 * MINUTE), iso(T0 + 40 * MINUTE));
    assert.deepEqual(used, session('h1', 'alice', { last_seen_at: iso(T0 + 10 * MINUTE), idle_until: iso(T0 + 40 * MINUTE) }));
    assert.equal(await s.useSession('h2', iso(T0), iso(T0 + 30 * MINUTE)), undefined);
    assert.equal(await s.useSession('h\u00001', iso(T0), iso(T0 + 30 * MINUTE)), undefined, 'a NUL in a looked-up id finds nothing');
  });

  withStore('sessions: idle past idle_until, or past expires_at however used, they are refused and nothing changes', async (s) => {
    await s.createSession(session('h1', 'alice'));
    assert.equal(await s.useSession('h1', iso(T0 + 30 * MINUTE), iso(T0 + 60 * MINUTE)), undefined, 'idle: ends at idle_until exactly');
    await s.createSession(session('h2', 'bob'));
    let now = T0;
    for (let i = 0; i < 16; i++) {
      now += 29 * MINUTE;
      assert.ok(await s.useSession('h2', iso(now), iso(now + 30 * MINUTE)), `used within the idle timeout at +${(now - T0) / MINUTE} min`);
      if (now + 29 * MINUTE >= T0 + 8 * HOUR) break;
    }
    assert.equal(await s.useSession('h2', iso(T0 + 8 * HOUR), iso(T0 + 8 * HOUR + 30 * MINUTE)), undefined, 'past the maximum lifetime');
  });

  withStore('sessions: revoking one; revoking a subject\'s (sign out everywhere) leaves other people\'s', async (s) => {
    await s.createSession(session('a1', 'alice'));
    await s.createSession(session('a2', 'alice', { created_at: iso(T0 + 1) }));
    await s.createSession(session('b1', 'bob'));
    const revoked = await s.revokeSession('a1', iso(T0 + MINUTE));
    assert.equal(revoked?.revoked_at, iso(T0 + MINUTE));
    assert.equal((await s.revokeSession('a1', iso(T0 + 2 * MINUTE)))?.revoked_at, iso(T0 + MINUTE), 'revoked again: keeps its time');
    assert.equal(await s.revokeSession('nope', iso(T0)), undefined);
    assert.equal(await s.useSession('a1', iso(T0 + 2 * MINUTE), iso(T0 + 30 * MINUTE)), undefined);
    assert.deepEqual((await s.pageSessions({ now: iso(T0 + 2 * MINUTE), limit: 10 })).items.map((x) => x.id), ['a2', 'b1']);
    assert.equal(await s.revokeSubjectSessions('alice', iso(T0 + 3 * MINUTE)), 1, 'a1 was revoked already');
    assert.equal(await s.useSession('a2', iso(T0 + 4 * MINUTE), iso(T0 + 30 * MINUTE)), undefined);
    assert.ok(await s.useSession('b1', iso(T0 + 4 * MINUTE), iso(T0 + 30 * MINUTE)));
    assert.deepEqual((await s.pageSessions({ now: iso(T0 + 4 * MINUTE), limit: 10 })).items.map((x) => x.id), ['b1']);
    assert.deepEqual(await s.pageSessions({ now: iso(T0 + 4 * MINUTE), subject: 'alice', limit: 10 }), { items: [] });
  });

  withStore('sessions: pages walked one after another give every session in force once, newest first, of one person or all', async (s) => {
    // Created out of order; some at the same time (ties by id, descending); some no longer in force.
    const made = Array.from({ length: 24 }, (_, i) => session(`h${String((i * 7) % 24).padStart(2, '0')}`, i % 3 === 0 ? 'alice' : 'bob', { created_at: iso(T0 + (i % 8) * 1000) }));
    for (const m of made) assert.equal(await s.createSession(m), true);
    await s.createSession(session('gone', 'alice', { created_at: iso(T0 + 500), revoked_at: iso(T0) }));
    await s.createSession(session('idle', 'bob', { created_at: iso(T0 + 500), idle_until: iso(T0 + 1) }));
    const newestFirst = (a: SessionRecord, b: SessionRecord) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1);
    for (const subject of [undefined, 'alice']) {
      const wanted = made.filter((m) => subject === undefined || m.subject === subject).sort(newestFirst).map((m) => m.id);
      for (const limit of [1, 5, 8, 50]) {
        const seen = await walkPages<SessionRecord>(limit, wanted.length, (x) => x.created_at, (after) => s.pageSessions({ now: iso(T0 + MINUTE), limit, ...(subject ? { subject } : {}), ...(after ? { after } : {}) }));
        assert.deepEqual(seen, wanted, `subject ${subject}, limit ${limit}`);
      }
    }
  });

  withStore('sessions: pruning deletes the revoked, idle and expired ones only', async (s) => {
    await s.createSession(session('live', 'alice'));
    await s.createSession(session('revoked', 'alice', { revoked_at: iso(T0) }));
    await s.createSession(session('idle', 'bob', { idle_until: iso(T0 + MINUTE) }));
    await s.createSession(session('expired', 'bob', { expires_at: iso(T0 + MINUTE) }));
    assert.equal(await s.pruneSessions(iso(T0 + MINUTE)), 3);
    assert.equal(await s.pruneSessions(iso(T0 + MINUTE)), 0);
    assert.deepEqual((await s.pageSessions({ now: iso(T0 + MINUTE), limit: 10 })).items.map((x) => x.id), ['live']);
    assert.equal(await s.revokeSession('idle', iso(T0)), undefined, 'deleted');
  });
});

test('sessions are not exported, and an export line naming them is refused on import', async () => {
  for (const engine of engines) {
    const store = (await engine.open()) as Awaited<ReturnType<typeof engine.open>> & StoreTransfer;
    await store.createSession(session('h1', 'alice'));
    const rows: TransferRow[] = [];
    for await (const row of store.exportRows()) rows.push(row);
    assert.deepEqual(rows.filter((r) => (r.table as string) === 'sessions'), [], engine.name);
    await store.close();
  }
  const { ImportReader } = await import('../../../src/store/transfer.ts');
  const reader = new ImportReader();
  reader.read(JSON.stringify({ format: 'cardgate-export', format_version: 1 }));
  assert.throws(() => reader.read(JSON.stringify({ table: 'sessions', row: session('h1', 'alice') })), /line 2: unknown table "sessions"/);
});

test('the file store keeps sessions across a restart, and its hourly upkeep prunes the ended ones', async () => {
  const dir = tempDirFactory('cardgate-sessions-')();
  const clock = new FakeClock(T0);
  const scheduler = new FakeScheduler(clock);
  const first = await openFileStore({ dataDir: dir, clock, scheduler });
  await first.createSession(session('h1', 'alice', { idle_until: iso(T0 + 90 * MINUTE) }));
  await first.createSession(session('h2', 'bob', { idle_until: iso(T0 + 3 * HOUR) }));
  await first.close();
  const second = await openFileStore({ dataDir: dir, clock, scheduler });
  try {
    assert.deepEqual((await second.pageSessions({ now: iso(T0), limit: 10 })).items.map((x) => x.id).sort(), ['h1', 'h2']);
    await scheduler.advance(2 * HOUR);
    assert.deepEqual((await second.pageSessions({ now: iso(T0), limit: 10 })).items.map((x) => x.id), ['h2'], 'h1 went idle and was pruned');
  } finally {
    await second.close();
  }
});
