/**
 * GET /docs: the OpenAPI document rendered as one HTML page on the server. No script and nothing
 * loaded from anywhere (its style is inline), so it works air-gapped and in any browser.
 */

type Json = Record<string, unknown>;

const esc = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** The document's prose: escaped, with `code` spans. */
const prose = (text: unknown): string => (typeof text === 'string' ? esc(text).replace(/`([^`]+)`/g, '<code>$1</code>') : '');

const asJson = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});
const refName = (ref: unknown): string => String(ref).split('/').pop()!;
const schemaAnchor = (name: string) => `schema-${name}`;
export const operationAnchor = (method: string, path: string) => `op-${method}-${path.replace(/[^A-Za-z0-9]+/g, '-')}`;

const constraints = (schema: Json): string => {
  const facts = [
    schema.format !== undefined && `${schema.format}`,
    schema.pattern !== undefined && `pattern <code>${esc(schema.pattern)}</code>`,
    schema.minimum !== undefined && `≥ ${schema.minimum}`,
    schema.maximum !== undefined && `≤ ${schema.maximum}`,
    schema.minLength !== undefined && `at least ${schema.minLength} characters`,
    schema.maxLength !== undefined && `at most ${schema.maxLength} characters`,
    schema.minItems !== undefined && `at least ${schema.minItems}`,
    schema.maxItems !== undefined && `at most ${schema.maxItems}`,
    schema.default !== undefined && `default <code>${esc(JSON.stringify(schema.default))}</code>`,
    schema.additionalProperties === false && 'no other members',
  ].filter(Boolean);
  return facts.length ? ` <span class="facts">(${facts.join(', ')})</span>` : '';
};

/** A schema as a short type expression, its members listed below it. */
const schemaHtml = (value: unknown, depth = 0): string => {
  const schema = asJson(value);
  if (schema.$ref) return `<a href="#${schemaAnchor(refName(schema.$ref))}">${esc(refName(schema.$ref))}</a>`;
  const alternatives = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  if (alternatives) return `one of: ${alternatives.map((s) => schemaHtml(s, depth)).join(' | ')}`;
  if (schema.const !== undefined) return `<code>${esc(JSON.stringify(schema.const))}</code>`;
  if (Array.isArray(schema.enum)) return `${schema.enum.map((v) => `<code>${esc(JSON.stringify(v))}</code>`).join(' | ')}${constraints({ ...schema, enum: undefined })}`;
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type ?? 'any']).map(String);
  const head = types
    .map((type) => (type === 'array' ? `array of ${schemaHtml(schema.items, depth)}` : `<span class="type">${esc(type)}</span>`))
    .join(' | ');
  return `${head}${constraints(schema)}${membersHtml(schema, depth)}`;
};

const membersHtml = (schema: Json, depth: number): string => {
  const properties = Object.entries(asJson(schema.properties));
  const extra = schema.additionalProperties;
  if (properties.length === 0 && (typeof extra !== 'object' || extra === null)) return '';
  if (depth > 8) return ' …';
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const rows = properties.map(([name, member]) => {
    const m = asJson(member);
    return `<li><code>${esc(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}: ${schemaHtml(m, depth + 1)}${
      m.description ? `<div class="desc">${prose(m.description)}</div>` : ''
    }</li>`;
  });
  if (typeof extra === 'object' && extra !== null) rows.push(`<li><i>any member</i>: ${schemaHtml(extra, depth + 1)}</li>`);
  return `<ul class="members">${rows.join('')}</ul>`;
};

const contentHtml = (content: unknown): string =>
  Object.entries(asJson(content))
    .map(([mediaType, media]) => `<div class="media"><code>${esc(mediaType)}</code>: ${schemaHtml(asJson(media).schema)}</div>`)
    .join('');

const parametersHtml = (parameters: unknown): string => {
  const rows = (Array.isArray(parameters) ? parameters : []).map((p) => {
    const param = asJson(p);
    return `<tr><td><code>${esc(param.name)}</code></td><td>${esc(param.in)}${param.required ? ', required' : ''}</td><td>${schemaHtml(param.schema)}</td><td>${prose(
      param.description ?? asJson(param.schema).description,
    )}</td></tr>`;
  });
  return rows.length ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th></th></tr>${rows.join('')}</table>` : '';
};

const responsesHtml = (responses: unknown): string => {
  const rows = Object.entries(asJson(responses)).map(([status, r]) => {
    const answer = asJson(r);
    const headers = Object.keys(asJson(answer.headers));
    return `<tr><td class="status s${esc(status[0])}">${esc(status)}</td><td>${prose(answer.description)}${contentHtml(answer.content)}${
      headers.length ? `<div class="headers">Headers: ${headers.map((h) => `<a href="#header-${esc(h)}"><code>${esc(h)}</code></a>`).join(', ')}</div>` : ''
    }</td></tr>`;
  });
  return `<h4>Responses</h4><table>${rows.join('')}</table>`;
};

const securityHtml = (security: unknown): string => {
  if (!Array.isArray(security) || security.length === 0) return '';
  const options = security.map((requirement) => {
    const names = Object.keys(asJson(requirement));
    return names.length ? names.map((n) => `<a href="#auth">${esc(n)}</a>`).join(' + ') : 'none';
  });
  return `<p class="auth">Auth: ${options.join(' or ')}</p>`;
};

const methods = ['get', 'post', 'put', 'patch', 'delete'];

interface Operation {
  method: string;
  path: string;
  op: Json;
}

const operationsOf = (doc: Json): Operation[] =>
  Object.entries(asJson(doc.paths)).flatMap(([path, item]) =>
    methods.filter((method) => asJson(item)[method]).map((method) => ({ method, path, op: asJson(asJson(item)[method]) })),
  );

const operationHtml = ({ method, path, op }: Operation): string => {
  const body = asJson(op.requestBody);
  return `<section class="op" id="${operationAnchor(method, path)}"><h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>
<p class="summary">${prose(op.summary)}</p>${op.description ? `<p>${prose(op.description)}</p>` : ''}${securityHtml(op.security)}${parametersHtml(op.parameters)}${
    op.requestBody ? `<h4>Request body${body.required ? '' : ' (optional)'}</h4>${contentHtml(body.content)}` : ''
  }${responsesHtml(op.responses)}</section>`;
};

const style = `
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--bg:#fff;--panel:#f6f8fa;--line:#d1d9e0;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--panel:#151b23;--line:#3d444d;--accent:#4493f8}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1040px;margin:0 auto;padding:24px 16px 48px}a{color:var(--accent)}
h1{margin:0 0 4px;font-size:28px}h2{margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}h3{margin:0 0 4px;font-size:17px}h4{margin:12px 0 4px;font-size:14px;color:var(--muted)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
nav ul{columns:2;padding-left:18px}nav li{break-inside:avoid}
.op{border:1px solid var(--line);border-radius:6px;padding:12px 16px;margin:12px 0}.summary{margin:4px 0;font-weight:600}
.method{display:inline-block;min-width:64px;text-align:center;padding:1px 8px;border-radius:4px;color:#fff;font-size:13px;font-weight:700}
.get{background:#1a7f37}.post{background:#0969da}.patch{background:#9a6700}.put{background:#9a6700}.delete{background:#cf222e}
table{border-collapse:collapse;width:100%;font-size:14px}th,td{border:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}th{background:var(--panel)}
td.status{font-weight:700;width:56px}.s2{color:#1a7f37}.s4{color:#9a6700}.s5{color:#cf222e}
.members{margin:4px 0;padding-left:18px}.desc,.facts,.headers,.auth{color:var(--muted)}.req{color:#cf222e;font-size:12px}.type{font-style:italic}
.media{margin:4px 0}
`;

/** The page for an OpenAPI 3.1 document. */
export const renderDocsPage = (doc: Json): string => {
  const info = asJson(doc.info);
  const components = asJson(doc.components);
  const operations = operationsOf(doc);
  const tags = (Array.isArray(doc.tags) ? doc.tags : []).map(asJson);
  const tagged = (tag: string) => operations.filter(({ op }) => Array.isArray(op.tags) && op.tags.includes(tag));
  const groups = tags
    .map((tag) => ({ tag, ops: tagged(String(tag.name)) }))
    .filter((g) => g.ops.length > 0);
  const nav = groups
    .map(({ tag, ops }) => `<li>${esc(tag.name)}<ul>${ops.map((o) => `<li><a href="#${operationAnchor(o.method, o.path)}">${o.method.toUpperCase()} ${esc(o.path)}</a></li>`).join('')}</ul></li>`)
    .join('');
  const sections = groups
    .map(({ tag, ops }) => `<h2>${esc(tag.name)}</h2><p>${prose(tag.description)}</p>${ops.map(operationHtml).join('')}`)
    .join('');
  const auth = Object.entries(asJson(components.securitySchemes))
    .map(([name, s]) => {
      const scheme = asJson(s);
      const how = scheme.type === 'http' ? `HTTP ${esc(scheme.scheme)}` : `${esc(scheme.type)} in ${esc(scheme.in)} <code>${esc(scheme.name)}</code>`;
      return `<tr><td><code>${esc(name)}</code></td><td>${how}</td><td>${prose(scheme.description)}</td></tr>`;
    })
    .join('');
  const headers = Object.entries(asJson(components.headers))
    .map(([name, h]) => `<tr id="header-${esc(name)}"><td><code>${esc(name)}</code></td><td>${prose(asJson(h).description)}</td></tr>`)
    .join('');
  const schemas = Object.entries(asJson(components.schemas))
    .map(([name, s]) => `<section class="op" id="${schemaAnchor(name)}"><h3>${esc(name)}</h3>${asJson(s).description ? `<p>${prose(asJson(s).description)}</p>` : ''}${schemaHtml(s)}</section>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(info.title)} API</title><style>${style}</style></head>
<body><main><h1>${esc(info.title)} API <small>${esc(info.version)}</small></h1><p>${prose(info.description)}</p>
<p>The same description as JSON: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${esc(doc.openapi)}).</p>
<nav><h2>Endpoints</h2><ul>${nav}</ul></nav>
<h2 id="auth">Authentication</h2><table>${auth}</table>
<h2>Headers</h2><table>${headers}</table>
${sections}
<h2>Schemas</h2>${schemas}
</main></body></html>`;
};
