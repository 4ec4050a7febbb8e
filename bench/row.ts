/** One line of the bench's printed table: every group returns these. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  note?: string;
}
