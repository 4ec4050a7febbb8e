/**
 * `sarif`: a SARIF 2.1.0 log with one run. The driver's rules are the rule catalogue (and the
 * pseudo-rule of an unreadable input), its live rules only where a result names one: a probe's log
 * lists them, a validation's stays within its answer budget. Each problem is a result pointing at
 * its file, line and column, with the card field's JSON path as its logical location. Columns are
 * UTF-16 code units (`columnKind`), as the positions are.
 */
import { ruleCatalogue } from '../catalogue.ts';
import { problemsOf, UNREADABLE_RULE, type CheckedInput } from './input.ts';

const SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

type CatalogueRule = (typeof ruleCatalogue)[number];

const sarifRule = (r: CatalogueRule, rulesUrl: string | undefined) => ({
  id: r.id,
  shortDescription: { text: r.description },
  help: { text: r.fix },
  ...(rulesUrl === undefined ? {} : { helpUri: `${rulesUrl}/${encodeURIComponent(r.id)}` }),
  // SARIF calls a finding that reports a good outcome a note.
  defaultConfiguration: { level: r.severity === 'info' ? 'note' : r.severity },
  properties: { spec: r.spec, source: r.source, versions: r.versions },
});

const isLive = (id: string): boolean => id.startsWith('live.');

/** The catalogue's rules, then the live rules `used` names, in catalogue order. */
const catalogueRules = (rulesUrl: string | undefined, used: ReadonlySet<string>) => [
  ...ruleCatalogue.filter((r) => !isLive(r.id)).map((r) => sarifRule(r, rulesUrl)),
  {
    id: UNREADABLE_RULE.id,
    shortDescription: { text: UNREADABLE_RULE.description },
    help: { text: UNREADABLE_RULE.fix },
    defaultConfiguration: { level: 'error' },
  },
  ...ruleCatalogue.filter((r) => isLive(r.id) && used.has(r.id)).map((r) => sarifRule(r, rulesUrl)),
];

/**
 * An input's name as an artifact URI: a URL as it is; a path with forward slashes and each
 * segment percent-encoded (`my card#1.json` -> `my%20card%231.json`), relative as given, and a
 * `file:` URI when it is absolute (`/srv/card.json`, `C:\cards\a.json`).
 */
export const artifactUri = (name: string): string => {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(name)) return name;
  const path = name.replaceAll('\\', '/');
  const drive = /^[A-Za-z]:\//.test(path);
  const encoded = path.split('/').map((segment, i) => (drive && i === 0 ? segment : encodeURIComponent(segment))).join('/');
  if (drive) return `file:///${encoded}`;
  return path.startsWith('/') ? `file://${encoded}` : encoded;
};

export const formatSarif = (inputs: readonly CheckedInput[], options: { toolVersion?: string; rulesUrl?: string } = {}): string => {
  const used = new Set(inputs.flatMap((input) => problemsOf(input).map((p) => p.rule)).filter(isLive));
  const rules = catalogueRules(options.rulesUrl, used);
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  const results = inputs.flatMap((input) => {
    const artifactLocation = { uri: artifactUri(input.name) };
    return problemsOf(input).map((p) => {
      const index = ruleIndex.get(p.rule);
      const region = p.line === undefined ? {} : { region: { startLine: p.line, startColumn: p.column ?? 1 } };
      return {
        ruleId: p.rule,
        ...(index === undefined ? {} : { ruleIndex: index }),
        level: p.severity === 'info' ? 'note' : p.severity,
        message: { text: p.message },
        locations: [
          {
            physicalLocation: { artifactLocation, ...region },
            ...(p.path === undefined ? {} : { logicalLocations: [{ fullyQualifiedName: p.path }] }),
          },
        ],
      };
    });
  });
  const driver = {
    name: 'cardgate',
    ...(options.toolVersion === undefined ? {} : { version: options.toolVersion }),
    rules,
  };
  const log = { $schema: SCHEMA, version: '2.1.0', runs: [{ tool: { driver }, columnKind: 'utf16CodeUnits', results }] };
  return `${JSON.stringify(log, null, 2)}\n`;
};
