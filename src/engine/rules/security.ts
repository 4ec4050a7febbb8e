/**
 * Security cross-references: requirements (card and skill level) naming undefined schemes, OAuth
 * scopes requested but not declared, an extended card advertised with nothing to authenticate with.
 */
import { joinPath, quoted, someOf } from '../paths.ts';
import { arrayOf, entriesOf, recordOf, type RuleContext } from './context.ts';

/** Declared scopes of an OAuth2 scheme, or undefined when the scheme is not OAuth2 (no scope list to check). */
function oauthScopes(scheme: unknown, v1: boolean): Set<string> | undefined {
  const s = recordOf(scheme);
  const oauth = v1 ? recordOf(s?.oauth2SecurityScheme) : s?.type === 'oauth2' ? s : undefined;
  if (!oauth) return undefined;
  const scopes = new Set<string>();
  for (const [, flow] of entriesOf(oauth.flows)) for (const [scope] of entriesOf(recordOf(flow)?.scopes)) scopes.add(scope);
  return scopes;
}

/** One requirement's scheme names and their scopes, with the path of each name. */
function requirementEntries(req: unknown, base: string, v1: boolean): { name: string; path: string; scopes: readonly unknown[] }[] {
  if (v1) {
    const schemesPath = joinPath(base, 'schemes');
    return entriesOf(recordOf(req)?.schemes).map(([name, l]) => ({ name, path: joinPath(schemesPath, name), scopes: arrayOf(recordOf(l)?.list) }));
  }
  return entriesOf(req).map(([name, scopes]) => ({ name, path: joinPath(base, name), scopes: arrayOf(scopes) }));
}

/**
 * What every requirement is checked against, built once per card: the rules stay linear in the
 * card (requirements x scopes, or requirements x defined names, took minutes on 150 KB).
 */
interface SchemeIndex {
  schemes: Record<string, unknown> | undefined;
  /** Declared scopes per OAuth2 scheme name, built on first use (undefined: not OAuth2). */
  scopesOf: (name: string) => Set<string> | undefined;
  /** A few of the defined scheme names (empty when none), for the undefined-scheme finding. */
  someDefined: string;
}

function indexSchemes(schemes: Record<string, unknown> | undefined, v1: boolean): SchemeIndex {
  const defined = Object.keys(schemes ?? {});
  const scopes = new Map<string, Set<string> | undefined>();
  return {
    schemes,
    scopesOf: (name) => {
      if (!scopes.has(name)) scopes.set(name, oauthScopes(schemes?.[name], v1));
      return scopes.get(name);
    },
    someDefined: someOf(defined),
  };
}

function checkRequirements(ctx: RuleContext, list: unknown, base: string, index: SchemeIndex): void {
  const v1 = ctx.version === '1.0';
  const { schemes } = index;
  arrayOf(list).forEach((req, i) => {
    for (const { name, path, scopes } of requirementEntries(req, `${base}[${i}]`, v1)) {
      const shownName = quoted(name);
      if (!schemes || !Object.hasOwn(schemes, name)) {
        const { someDefined } = index;
        ctx.report.add('security.undefined-scheme', path, `scheme ${shownName} is not defined in securitySchemes (${someDefined ? `defined: ${someDefined}` : 'securitySchemes defines none'})`,
          someDefined ? `use one of ${someDefined} or add ${shownName} under securitySchemes` : `add "securitySchemes": {${shownName}: {...}} describing how to authenticate`);
        continue;
      }
      const declared = index.scopesOf(name);
      if (!declared) continue;
      for (const scope of scopes) {
        if (typeof scope === 'string' && !declared.has(scope)) {
          ctx.report.add('security.scope.undeclared', path, `scope ${quoted(scope)} is declared by no flow of scheme ${shownName}`,
            `add ${quoted(scope)}: "<what it grants>" to the "scopes" of a flow of ${joinPath('securitySchemes', name)}`);
        }
      }
    }
  });
}

export function checkSecurity(ctx: RuleContext): void {
  const { card } = ctx;
  const v1 = ctx.version === '1.0';
  const schemes = recordOf(card.securitySchemes);
  const field = v1 ? 'securityRequirements' : 'security';
  const index = indexSchemes(schemes, v1);
  checkRequirements(ctx, card[field], field, index);
  arrayOf(card.skills).forEach((s, i) => checkRequirements(ctx, recordOf(s)?.[field], `skills[${i}].${field}`, index));

  const flagPath = v1 ? 'capabilities.extendedAgentCard' : 'supportsAuthenticatedExtendedCard';
  const flag = v1 ? recordOf(card.capabilities)?.extendedAgentCard : card.supportsAuthenticatedExtendedCard;
  if (flag === true && (!schemes || Object.keys(schemes).length === 0)) {
    ctx.report.add('extended-card.no-security', flagPath, `${v1 ? 'extendedAgentCard' : flagPath} is true, but securitySchemes declares no scheme to authenticate with`,
      v1 ? 'add e.g. "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}} and "securityRequirements": [{"schemes": {"bearer": {"list": []}}}]'
        : 'add e.g. "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}} and "security": [{"bearer": []}]');
  }
}
