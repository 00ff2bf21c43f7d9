// Rows as aligned columns, for a person: `land status`, `land ledger`, `land tune`.
import { printable } from './safeText.js';

/** Renders rows as aligned columns; each cell passes through printable() (one cell, one line). */
export function table(headers: readonly string[], cells: readonly (readonly string[])[]): string {
  const rows = cells.map((row) => row.map(printable));
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}
