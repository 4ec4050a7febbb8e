/**
 * Spec references in rule descriptions ("0.3.0 §5.6.1", "1.0 §8.4.2; RFC 7515 §4.1.11") as links:
 * each § to its section of the published A2A specification of the version named before it, an
 * RFC's section to the RFC. The anchors are the headings' ids on the specification's site; only the
 * sections the rule catalogue cites are listed (a test checks every citation resolves).
 */
import { esc, prose } from './layout.ts';

/** Version as the catalogue names it → the published specification it means. */
const specVersion: Record<string, string> = { '0.2.5+': '0.2.5', '0.2.5': '0.2.5', '0.x': '0.3.0', '0.3.0': '0.3.0', '1.0': '1.0.0' };

/** Section number → heading anchor, per published specification. */
export const specAnchors: Record<string, Record<string, string>> = {
  '0.2.5': { '5.5': '55-agentcard-object-structure' },
  '0.3.0': { '3.2': '32-supported-transport-protocols', '5.3': '53-recommended-location', '5.4': '54-security-of-agent-cards', '5.5': '55-agentcard-object-structure', '5.5.5': '555-agentinterface-object', '5.6.1': '561-main-url-and-preferred-transport', '5.6.4': '564-validation-requirements', '7.10': '710-agentgetauthenticatedextendedcard' },
  '1.0.0': { '3.1.11': '3111-get-extended-agent-card', '3.6': '36-versioning', '4.4.1': '441-agentcard', '5': '5-protocol-binding-requirements-and-interoperability', '5.5': '55-json-field-naming-convention', '5.7': '57-field-presence-and-optionality', '7.1': '71-protocol-security', '8.2': '82-discovery-mechanisms', '8.3': '83-protocol-declaration-requirements', '8.3.1': '831-supported-interfaces-declaration', '8.4.2': '842-signature-format', '8.4.3': '843-signature-verification', '13.3': '133-extended-agent-card-access-control', '14.3': '143-well-known-uri-registration' },
};

const citation = /(RFC \d+|0\.2\.5\+|0\.2\.5|0\.x|0\.3\.0|1\.0)|§(\d+(?:\.\d+)*)/g;

export interface SpecCitation {
  /** The § text as written, e.g. `§5.6.1`. */
  text: string;
  href?: string;
}

/** The § citations of `spec`, in order, each with its link when its section is known. */
export const specCitations = (spec: string): SpecCitation[] => {
  const out: SpecCitation[] = [];
  let source: string | undefined;
  for (const m of spec.matchAll(citation)) {
    if (m[1]) {
      source = m[1];
      continue;
    }
    const section = m[2]!;
    const rfc = source?.startsWith('RFC ') ? source.slice(4) : undefined;
    const version = source && !rfc ? specVersion[source] : undefined;
    const anchor = version ? specAnchors[version]?.[section] : undefined;
    const href = rfc
      ? `https://www.rfc-editor.org/rfc/rfc${rfc}#section-${section}`
      : anchor
        ? `https://a2a-protocol.org/v${version}/specification/#${anchor}`
        : undefined;
    out.push({ text: m[0], ...(href ? { href } : {}) });
  }
  return out;
};

/** `spec` as HTML: `code` spans, and each known § a link to its section. */
export const specHtml = (spec: string): string => {
  const links = specCitations(spec);
  let i = 0;
  // Escaping never touches "§" or digits, so the citations are found again in the escaped text.
  return prose(spec).replace(/§\d+(?:\.\d+)*/g, (text) => {
    const link = links[i++];
    return link?.href ? `<a href="${esc(link.href)}">${text}</a>` : text;
  });
};
