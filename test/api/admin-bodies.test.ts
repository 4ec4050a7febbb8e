/**
 * Every admin route that takes a JSON body reads it through one reader (src/api/body.ts) and its
 * use case parses it with one parser (parseInput): a bad body is the same 400 on each, the flat
 * `{error, code: "INVALID_REQUEST"}` whose error names every bad field by its path. The routes are
 * found in the OpenAPI document, so a new one is checked without being listed here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../support/app.ts';
import { nonEmpty } from '../support/checks.ts';

const TOKEN = 'test-admin-token-0123456789';

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** The JSON types a schema admits (of each alternative). */
const typesOf = (schema: JsonSchema): string[] => [schema.type ?? [], ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap((s) => (typeof s === 'string' || Array.isArray(s) ? s : typesOf(s)));

/** A value of a type the schema does not admit; undefined when it admits any. */
const wrongValue = (schema: JsonSchema): unknown => {
  const types = typesOf(schema);
  if (types.length === 0) return undefined;
  return types.includes('string') ? (types.includes('array') ? true : ['not', 'a', 'string']) : 'not this type';
};

test('a bad body to any admin write route is the one 400: INVALID_REQUEST naming every bad field by its path', async () => {
  const t = testApp();
  const doc = (await (await t.app.request('/openapi.json')).json()) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
    components: { schemas: Record<string, JsonSchema> };
  };
  const resolved = (schema: JsonSchema): JsonSchema => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').at(-1)!]! : schema);
  const checked: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.startsWith('/admin/api/')) continue;
    for (const [method, operation] of Object.entries(operations)) {
      const json = operation.requestBody?.content['application/json'];
      // PUT /admin/api/accounts/{id}/ruleset takes a ruleset document (JSON or YAML): its problems, with lines and columns, are the ruleset's 400 (rulesets.md).
      if (!json || path.endsWith('/ruleset')) continue;
      const fields = Object.entries(resolved(json.schema).properties ?? {}).map(([name, schema]) => [name, wrongValue(resolved(schema))] as const).filter(([, value]) => value !== undefined);
      assert.ok(fields.length > 0, `${method} ${path}: a field to get wrong`);
      const url = path.replace(/\{[^}]+\}/g, 'x_missing');
      const body = JSON.stringify(Object.fromEntries(fields));
      // Content-Length as an HTTP client sends it: a body that may be left out is read only when one is declared.
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
      const res = await t.app.request(url, { method: method.toUpperCase(), headers, body });
      const answer = (await res.json()) as Record<string, unknown>;
      const what = `${method.toUpperCase()} ${path} ${JSON.stringify(answer)}`;
      assert.equal(res.status, 400, what);
      assert.deepEqual(Object.keys(answer).sort(), ['code', 'error'], what);
      assert.equal(answer.code, 'INVALID_REQUEST', what);
      for (const [name] of fields) assert.match(String(answer.error), new RegExp(`(^|; )${name}: `), `${what}: names ${name}`);
      checked.push(`${method.toUpperCase()} ${path}`);
    }
  }
  assert.ok(nonEmpty(checked, 'admin write routes').length >= 10, checked.join(', '));
});
