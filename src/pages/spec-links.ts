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
  '0.3.0': { '3.2': '32-supported-transport-protocols', '5.3': '53-recommended-location', '5.4': '54-security-of-agent-cards', '5.5': '55-agentcard-object-structure', '5.5.5': '555-agentinterface-object', '5.6.1': '561-main-url-and-preferred-transport', '5.6.4': '564-validation-requirements', '7.10': '710-agentgetauthenticatedextendedcard', '3.5': '35-method-mapping-and-naming-conventions', '7.1': '71-messagesend', '7.2': '72-messagestream' },
  '1.0.0': { '3.1.11': '3111-get-extended-agent-card', '3.6': '36-versioning', '4.4.1': '441-agentcard', '5': '5-protocol-binding-requirements-and-interoperability', '5.5': '55-json-field-naming-convention', '5.7': '57-field-presence-and-optionality', '7.1': '71-protocol-security', '8.2': '82-discovery-mechanisms', '8.3': '83-protocol-declaration-requirements', '8.3.1': '831-supported-interfaces-declaration', '8.4.1': '841-canonicalization-requirements', '8.4.2': '842-signature-format', '8.4.3': '843-signature-verification', '13.3': '133-extended-agent-card-access-control', '14.3': '143-well-known-uri-registration', '3.1.1': '311-send-message', '3.2.6': '326-service-parameters', '3.1.2': '312-send-streaming-message', '3.3.4': '334-capability-validation', '5.3': '53-method-mapping-reference', '5.4': '54-error-code-mappings', '8.6': '86-caching', '9.4': '94-core-methods', '9.5': '95-error-handling', '11.3': '113-url-patterns-and-http-methods', '11.6': '116-error-handling', '14.1': '141-media-type-registration' },
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
