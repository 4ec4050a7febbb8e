/**
 * Lines and columns in JSON text, for findings and syntax errors a person looks up in an editor.
 * Both are 1-based. A column counts UTF-16 code units, as JavaScript strings, eslint, tsc and
 * the editors' "go to line:column" do: a tab is one column, an astral-plane character (an emoji)
 * is two. Lines end at "\n", "\r\n" or a lone "\r". A leading byte order mark is not counted: no
 * editor shows it, so the first visible character is column 1.
 */
import { visit } from 'jsonc-parser';

export interface TextPosition {
  line: number;
  column: number;
}

const BOM = 0xfeff;

/** Positions of UTF-16 offsets in one text; the line starts are found once, on the first question. */
export class LineIndex {
  private starts: number[] | undefined;

  constructor(private readonly text: string) {}

  private lineStarts(): number[] {
    if (this.starts) return this.starts;
    const text = this.text;
    const starts = [text.charCodeAt(0) === BOM ? 1 : 0];
    // Line breaks found by indexOf: a card sent on one line (most request bodies) costs two native scans.
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    while (lf >= 0 || cr >= 0) {
      // The break's last character: a CR alone, or the LF (of CRLF, or alone).
      const end = cr >= 0 && (lf < 0 || cr < lf) && lf !== cr + 1 ? cr : lf;
      starts.push(end + 1);
      if (lf >= 0 && lf <= end) lf = text.indexOf('\n', end + 1);
      if (cr >= 0 && cr <= end) cr = text.indexOf('\r', end + 1);
    }
    return (this.starts = starts);
  }

  /** The position of the character at `offset` (an offset at the end of the text is just past its last character). */
  position(offset: number): TextPosition {
    const starts = this.lineStarts();
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: Math.max(offset - starts[low]!, 0) + 1 };
  }
}

/** The text without its leading byte order mark, if it has one (JSON.parse refuses it; RFC 8259 lets a parser ignore it). */
export const withoutBom = (text: string): string => (text.charCodeAt(0) === BOM ? text.slice(1) : text);

/** What is wrong with a JSON text, and where. */
export interface JsonSyntaxProblem extends TextPosition {
  /** The parser's reason, without its own offset (`Expected ',' or '}' after property value`). */
  reason: string;
}

/** V8 words the offset of most syntax errors as "... in JSON at position N" (Node 22 adds " (line L column C)"). */
const v8Position = /\s+in JSON at position (\d+)(?: \(line \d+ column \d+\))?$/;

/** The offset of the first error jsonc-parser finds in strict JSON (no comments, no trailing commas). */
const firstErrorOffset = (text: string): number | undefined => {
  let offset: number | undefined;
  visit(text, { onError: (_error, at) => void (offset ??= at) }, { disallowComments: true, allowTrailingComma: false });
  return offset;
};

/**
 * Where JSON.parse failed on `text`, from its own error: the offset it names. For the errors it
 * gives no offset (an unexpected token: "Unexpected token ']', "[1,]" is not valid JSON"; the end
 * of the input), jsonc-parser finds the spot, or it is the end of the text. `text` is what
 * JSON.parse was given (without a byte order mark).
 */
export const jsonSyntaxProblem = (text: string, error: SyntaxError): JsonSyntaxProblem => {
  const lines = new LineIndex(text);
  const named = v8Position.exec(error.message);
  if (named) return { reason: error.message.slice(0, named.index), ...lines.position(Number(named[1])) };
  // `Unexpected token 'x', "<the text, cut>" is not valid JSON`: keep the words, not the quoted text.
  const token = /^(Unexpected token '.+?'), "/s.exec(error.message);
  const reason = token ? token[1]! : error.message;
  return { reason, ...lines.position(firstErrorOffset(text) ?? text.length) };
};

/** `reason at line L, column C`: how messages state a syntax problem. */
export const describeSyntaxProblem = (p: JsonSyntaxProblem): string => `${p.reason} at line ${p.line}, column ${p.column}`;
