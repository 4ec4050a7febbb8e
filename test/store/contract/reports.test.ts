/** The Store contract: reports, on every engine (see engines.ts). */
import assert from 'node:assert/strict';
import type { PagePosition } from '../../../src/store/contract/paging.ts';
import type { ReportPageQuery } from '../../../src/store/contract/reports.ts';
import { contractSuite } from './engines.ts';
import { newestReports } from '../../support/reports.ts';
import { T0, iso, report } from '../fixtures/records.ts';

contractSuite('reports', (withStore) => {
  withStore('reports: by id and alias (latest wins), newest first, per account, limit, count', async (s) => {
    for (let i = 1; i <= 7; i++) await s.putReport(report(`rpt_${i}`, { account_id: i % 2 ? 'acc_1' : 'acc_2', created_at: iso(T0 + i) }));
    await s.putReport(report('gh_1', { kind: 'github', alias: 'a'.repeat(40), created_at: iso(T0 + 8) }));
    await s.putReport(report('gh_2', { kind: 'github', alias: 'a'.repeat(40), created_at: iso(T0 + 9), result: { validation: { valid: false } } }));
    await s.commit();
    assert.equal(await s.reportCount(), 9);
    assert.deepEqual((await s.getReport('rpt_1'))?.card, { name: 'card rpt_1' });
    assert.equal((await s.getReport('a'.repeat(40)))?.id, 'gh_2');
    assert.equal(await s.getReport('rpt_none'), undefined);
    assert.deepEqual((await s.pageReports({ sort: 'created_at', descending: true, limit: 3 })).items.map((r) => r.id), ['gh_2', 'gh_1', 'rpt_7']);
    assert.deepEqual((await newestReports(s, 'acc_2')).map((r) => r.id), ['rpt_6', 'rpt_4', 'rpt_2']);
    const gh2 = (await s.pageReports({ sort: 'created_at', descending: true, limit: 1 })).items[0];
    assert.deepEqual(gh2, {
      id: 'gh_2', kind: 'github', created_at: iso(T0 + 9), account_id: 'acc_1', alias: 'a'.repeat(40), valid: false, score: null, agent_name: 'card gh_2', errors: null,
    });
  });

  withStore('pageReports: agent name and error count summarised; searched, per account, sorted and paged; batches have no agent', async (s) => {
    const result = (score: number, errors: number) => ({ valid: errors === 0, score, errors: Array.from({ length: errors }, () => ({ message: 'x' })) });
    await s.putReport(report('rpt_1', { created_at: iso(T0 + 1), card: { name: 'Weather Bot' }, result: result(90, 0) }));
    await s.putReport(report('rpt_2', { created_at: iso(T0 + 2), card: { name: 'weather station' }, result: { ...result(40, 2), truncated: { errors: 3 } } }));
    await s.putReport(report('rpt_3', { created_at: iso(T0 + 3), card: { name: 42 }, result: result(70, 1), account_id: 'acc_2' }));
    await s.putReport(report('batch_4', { kind: 'batch', created_at: iso(T0 + 4), card: [{ id: 'a', agent_card: { name: 'n' } }], result: { summary: { average_score: 55 }, invalid: 1 } }));
    const { card: _card, result: _result, ...fields } = report('rpt_5', { created_at: iso(T0 + 5) });
    await s.putReport({ ...fields, requestJson: '{"agent_card":{"name":"Zed"}}', resultJson: JSON.stringify(result(70, 1)), verdict: { valid: false, score: 70, agent_name: 'Zed', errors: 1 } });
    await s.putReport(report('rpt_6', { created_at: iso(T0 + 6), card: {}, result: {} }));
    await s.commit();

    const all = await s.pageReports({ sort: 'created_at', descending: true, limit: 50 });
    assert.equal(all.next, undefined);
    assert.deepEqual(all.items.map((r) => [r.id, r.agent_name, r.errors, r.score]), [
      ['rpt_6', null, null, null],
      ['rpt_5', 'Zed', 1, 70],
      ['batch_4', null, null, 55],
      ['rpt_3', null, 1, 70],
      ['rpt_2', 'weather station', 5, 40],
      ['rpt_1', 'Weather Bot', 0, 90],
    ]);
    const ids = async (query: Omit<ReportPageQuery, 'limit'>, limit = 2) => {
      const out: string[] = [];
      let after: PagePosition | undefined;
      do {
        const page = await s.pageReports({ ...query, limit, ...(after ? { after } : {}) });
        out.push(...page.items.map((r) => r.id));
        after = page.next;
      } while (after);
      return out;
    };
    // Ties by id; a missing score or count sorts as -1, a missing name as "".
    assert.deepEqual(await ids({ sort: 'score', descending: true }), ['rpt_1', 'rpt_5', 'rpt_3', 'batch_4', 'rpt_2', 'rpt_6']);
    assert.deepEqual(await ids({ sort: 'errors', descending: false }), ['batch_4', 'rpt_6', 'rpt_1', 'rpt_3', 'rpt_5', 'rpt_2']);
    assert.deepEqual(await ids({ sort: 'agent_name', descending: false }, 4), ['batch_4', 'rpt_3', 'rpt_6', 'rpt_1', 'rpt_2', 'rpt_5']);
    assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'WEATHER' }), ['rpt_1', 'rpt_2']);
    assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'batch' }), ['batch_4']);
    assert.deepEqual(await ids({ sort: 'created_at', descending: true, account_id: 'acc_2' }), ['rpt_3']);
    assert.deepEqual(await ids({ sort: 'created_at', descending: true, account_id: 'acc_none' }), []);
    // q is a text to contain, never a pattern: %, _ and \ match only themselves.
    await s.putReport(report('rpt_7', { created_at: iso(T0 + 7), card: { name: '100% sure_thing \\o/' }, result: result(1, 0) }));
    for (const q of ['%', '0% s', 'e_t',  '\\', '\\O/']) assert.deepEqual(await ids({ sort: 'created_at', descending: false, q }), ['rpt_7'], q);
    assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'rpt%' }), []);
    assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'sure%thing' }), []);
    assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'w_ather' }), []);
  });

  withStore('pageReports: q contains, by agent name or id, ASCII letters in either case, the same under each sort, either way, any page size', async (s) => {
    const result = (score: number, errors: number) => ({ valid: errors === 0, score, errors: Array.from({ length: errors }, () => ({ message: 'x' })) });
    const named: Array<[string, string, number, number]> = [
      ['rpt_1', 'Weather Bot', 50, 0],
      ['rpt_2', 'WEATHER station', 50, 1],
      ['rpt_weather_3', 'Zed', 10, 1], // by its id only
      ['rpt_weather_4', 'weather', 90, 0], // by both: listed once
      ['rpt_5', 'Éweather', 50, 2], // É is no ASCII letter: it keeps its case, and sorts after z
      ['rpt_6', 'Travel', 70, 0],
      ['rpt_7', '50%_off \\ deals', 70, 0],
    ];
    for (const [i, [id, name, score, errors]] of named.entries()) await s.putReport(report(id, { created_at: iso(T0 + i), card: { name }, result: result(score, errors) }));
    await s.putReport(report('batch_weather_8', { kind: 'batch', created_at: iso(T0 + 8), card: [], result: { summary: { average_score: 30 }, invalid: 0 } }));
    await s.commit();
    const ids = async (query: Omit<ReportPageQuery, 'limit'>, limit: number) => {
      const out: string[] = [];
      let after: PagePosition | undefined;
      do {
        const page = await s.pageReports({ ...query, limit, ...(after ? { after } : {}) });
        assert.ok(page.items.length <= limit && (page.items.length > 0 || !after));
        out.push(...page.items.map((r) => r.id));
        after = page.next;
      } while (after);
      return out;
    };
    // Ascending; ties by id; a batch's name sorts as "", its error count as -1.
    const weather = {
      agent_name: ['batch_weather_8', 'rpt_weather_4', 'rpt_1', 'rpt_2', 'rpt_weather_3', 'rpt_5'],
      created_at: ['rpt_1', 'rpt_2', 'rpt_weather_3', 'rpt_weather_4', 'rpt_5', 'batch_weather_8'],
      score: ['rpt_weather_3', 'batch_weather_8', 'rpt_1', 'rpt_2', 'rpt_5', 'rpt_weather_4'],
      errors: ['batch_weather_8', 'rpt_1', 'rpt_weather_4', 'rpt_2', 'rpt_weather_3', 'rpt_5'],
    };
    for (const [sort, expected] of Object.entries(weather) as Array<[keyof typeof weather, string[]]>) {
      for (const limit of [1, 2, 5, 50]) {
        assert.deepEqual(await ids({ sort, descending: false, q: 'WeAtHeR' }, limit), expected, `${sort} ${limit}`);
        assert.deepEqual(await ids({ sort, descending: true, q: 'weather' }, limit), [...expected].reverse(), `-${sort} ${limit}`);
      }
      assert.deepEqual(await ids({ sort, descending: false, q: 'ÉWEATHER' }, 2), ['rpt_5'], sort);
      assert.deepEqual(await ids({ sort, descending: false, q: 'éweather' }, 2), [], sort);
      assert.deepEqual(await ids({ sort, descending: false, q: '_OFF \\ D' }, 2), ['rpt_7'], sort);
      for (const q of ['5%', 'r_t', '\\\\', 'no such']) assert.deepEqual(await ids({ sort, descending: false, q }, 2), [], `${sort} ${q}`);
    }
    // A report put again under another name is found by its new name, not its old one.
    await s.putReport(report('rpt_6', { created_at: iso(T0 + 5), card: { name: 'Weather again' }, result: result(70, 0) }));
    assert.deepEqual(await ids({ sort: 'agent_name', descending: false, q: 'weather a' }, 1), ['rpt_6']);
    assert.deepEqual(await ids({ sort: 'created_at', descending: false, q: 'travel' }, 1), []);
  });

  withStore('reports: one put with its request body verbatim reads back with the card from that body', async (s) => {
    const card = { name: 'Tab\tcard', description: 'line\nbreak "quoted" <b>é</b> 😀', skills: [{ id: 's' }] };
    // Pretty-printed with CRLF, as an editor might send it.
    const text = JSON.stringify({ agent_card: card, options: { include_score: true } }, null, 2).replaceAll('\n', '\r\n');
    const result = { valid: false, score: 40, errors: [{ path: 'url', message: 'url is required', rule: 'schema.required' }] };
    const { card: _card, result: _result, ...fields } = report('rpt_raw');
    await s.putReport({ ...fields, requestJson: text, resultJson: JSON.stringify(result), verdict: { valid: false, score: 40 } });
    await s.putReport(report('rpt_next', { created_at: iso(T0 + 1) }));
    const got = await s.getReport('rpt_raw');
    // request_text: the body's text as sent, line breaks (here CRLF) included, where the card's own lines are.
    assert.deepEqual(got, { ...fields, result, card, request_text: text });
    assert.deepEqual((await s.pageReports({ sort: 'created_at', descending: true, limit: 2 })).items.map((r) => [r.id, r.valid, r.score]), [['rpt_next', true, 97], ['rpt_raw', false, 40]]);
  });

  withStore('reports: putting an id again replaces it in place', async (s) => {
    await s.putReport(report('rpt_1', { result: { valid: false, score: 10 } }));
    await s.putReport(report('rpt_2'));
    await s.putReport(report('rpt_3'));
    await s.putReport(report('rpt_4'));
    await s.putReport(report('rpt_1', { result: { valid: true, score: 99 } }));
    assert.equal(await s.reportCount(), 4);
    assert.deepEqual((await s.getReport('rpt_1'))?.result, { valid: true, score: 99 });
    assert.deepEqual((await newestReports(s)).map((r) => r.id), ['rpt_4', 'rpt_3', 'rpt_2', 'rpt_1']);
    assert.equal((await newestReports(s)).at(-1)?.score, 99);
  });

  withStore('reports: prune removes those created before the cutoff, aliases too', async (s) => {
    for (let i = 1; i <= 10; i++) await s.putReport(report(`rpt_${i}`, { created_at: iso(T0 + i * 1000), alias: i === 2 ? 'sha_old' : undefined }));
    await s.commit();
    assert.equal(await s.pruneReports(T0 + 6000), 5);
    assert.equal(await s.reportCount(), 5);
    assert.equal(await s.getReport('rpt_3'), undefined);
    assert.equal(await s.getReport('sha_old'), undefined);
    assert.equal((await s.getReport('rpt_6'))?.id, 'rpt_6');
    assert.deepEqual((await newestReports(s)).map((r) => r.id), ['rpt_10', 'rpt_9', 'rpt_8', 'rpt_7', 'rpt_6']);
    assert.equal(await s.pruneReports(T0 + 6000), 0);
  });

  withStore('reports: an alias moves only to a later report with the same alias_scope; one refused is stored without it', async (s) => {
    const sha = 'c'.repeat(40);
    assert.equal(await s.putReport(report('gh_1', { kind: 'github', alias: sha, alias_scope: 'octo/agent' })), true);
    assert.equal(await s.putReport(report('gh_2', { kind: 'github', alias: sha, alias_scope: 'mallory/agent', result: { validation: { valid: false } } })), false);
    assert.equal((await s.getReport(sha))?.id, 'gh_1');
    const refused = await s.getReport('gh_2');
    assert.equal(refused?.alias, undefined);
    assert.equal(refused?.alias_scope, 'mallory/agent');
    assert.equal((await s.pageReports({ sort: 'created_at', descending: true, limit: 1 })).items[0]?.alias, undefined);
    assert.equal(await s.putReport(report('gh_2', { kind: 'github', alias: sha, alias_scope: 'mallory/agent' })), false, 'not by putting the same id again either');
    assert.equal(await s.putReport(report('gh_3', { kind: 'github', alias: sha, alias_scope: 'octo/agent' })), true);
    assert.equal((await s.getReport(sha))?.id, 'gh_3');
    assert.equal(await s.putReport(report('rpt_plain')), true, 'a report without an alias');
  });

  withStore('a report put verbatim reads back whatever its nesting', async (s) => {
    const depth = 100_000;
    const { card: _card, result, ...fields } = report('rpt_deep');
    const requestJson = `{"agent_card":{"name":"deep","x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    await s.putReport({ ...fields, requestJson, resultJson: JSON.stringify(result), verdict: { valid: true, score: 97 } });
    assert.equal(((await s.getReport('rpt_deep'))?.card as { name: string }).name, 'deep');
  });
});
