/**
 * `cardgate sign` writes the card back as its author wrote it: the text is kept, and only the
 * value of the top-level `signatures` member is replaced, or the member added after the last one,
 * in the file's own indentation and line ends. A reviewer's diff is then the signature alone.
 */
import { parseTree, type Node } from 'jsonc-parser';

/** The whitespace before `offset` on its line, when nothing else precedes it there (the member starts its line). */
const lineIndent = (text: string, offset: number): string | undefined => {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(start, offset);
  return /^[ \t]+$/.test(before) ? before : undefined;
};

/** The array as the file would write it: on one line in a one-line card, else indented as the member's line is. */
const arrayText = (signatures: readonly unknown[], indent: string | undefined, eol: string): string =>
  indent === undefined ? JSON.stringify(signatures) : JSON.stringify(signatures, null, indent).replaceAll('\n', `${eol}${indent}`);

/**
 * The card's text with `signatures` set; undefined when the text is not one JSON object the edit
 * can keep (the caller then writes the card anew).
 */
export const withSignaturesText = (text: string, signatures: readonly unknown[]): string | undefined => {
  const root = parseTree(text, [], { disallowComments: true });
  if (root?.type !== 'object') return undefined;
  const members = (root.children ?? []).filter((m): m is Node & { children: [Node, Node] } => m.children?.length === 2);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  // JSON.parse keeps the last of duplicate members: that is the one to replace.
  const existing = members.filter((m) => m.children[0].value === 'signatures').at(-1);
  if (existing) {
    const value = existing.children[1];
    return `${text.slice(0, value.offset)}${arrayText(signatures, lineIndent(text, existing.offset), eol)}${text.slice(value.offset + value.length)}`;
  }
  const last = members.at(-1);
  if (!last) {
    const inside = root.offset + 1;
    return `${text.slice(0, inside)}"signatures": ${arrayText(signatures, undefined, eol)}${text.slice(inside)}`;
  }
  const indent = lineIndent(text, last.offset);
  // The separator between a key and its value as the last member writes it (`: `, `:`).
  const colon = text.slice(last.children[0].offset + last.children[0].length, last.children[1].offset);
  const end = last.offset + last.length;
  const member = `${indent === undefined ? ',' : `,${eol}${indent}`}"signatures"${colon}${arrayText(signatures, indent, eol)}`;
  return `${text.slice(0, end)}${member}${text.slice(end)}`;
};
