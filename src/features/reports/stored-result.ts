/** A stored result as the report page and the diff read it: flat (single, webhook) or under `validation` (GitHub). */

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

export interface StoredResult {
  /** The result's top level (a GitHub result's suggestions and score are there). */
  top: Json;
  /** Where the verdict and the findings are: the top level, or `validation` of a GitHub result. */
  validation: Json;
  valid: boolean | null;
  score: number | null;
  /** `truncated` of the result: how many of each list the findings cap left out. */
  truncated: Json;
}

export const storedResult = (result: unknown): StoredResult => {
  const top = asObject(result);
  const validation = typeof top.validation === 'object' ? asObject(top.validation) : top;
  return {
    top,
    validation,
    valid: typeof validation.valid === 'boolean' ? validation.valid : null,
    score: typeof top.score === 'number' ? top.score : typeof validation.score === 'number' ? validation.score : null,
    truncated: asObject(validation.truncated),
  };
};
