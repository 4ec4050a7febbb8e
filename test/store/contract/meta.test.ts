/** The Store contract: meta, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import { contractSuite } from './engines.ts';

contractSuite('meta', (withStore) => {
  withStore('meta: set and get', async (s) => {
    assert.equal(await s.getMeta('admin_token_hash'), undefined);
    await s.setMeta('admin_token_hash', 'abc');
    await s.setMeta('admin_token_hash', 'def');
    assert.equal(await s.getMeta('admin_token_hash'), 'def');
  });

  withStore('setMetaIfAbsent: 50 concurrent calls store one value, and every call resolves that one', async (s) => {
    const values = Array.from({ length: 50 }, (_, i) => `token_hash_${i}`);
    const answers = await Promise.all(values.map((v) => s.setMetaIfAbsent('admin_token_sha256', v)));
    const stored = await s.getMeta('admin_token_sha256');
    assert.ok(stored !== undefined && values.includes(stored));
    assert.deepEqual(new Set(answers), new Set([stored]));
    assert.equal(await s.setMetaIfAbsent('admin_token_sha256', 'later'), stored, 'a value found is kept');
    assert.equal(await s.getMeta('admin_token_sha256'), stored);
  });
});
