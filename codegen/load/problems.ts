/** Problems found in a tools.yaml, reported all at once with file, line and column. */

export interface Problem {
  line: number;
  col: number;
  message: string;
}

/**
 * The report of a bad file: a `file: N problems` line, then each problem as `file:line:col: message`,
 * sorted by position. With the file's text, each problem also shows its line and a caret under the column.
 */
export function formatProblems(file: string, problems: readonly Problem[], source?: string): string {
  const sorted = [...problems].sort((a, b) => a.line - b.line || a.col - b.col);
  const lines = source?.split('\n');
  // One gutter width for the whole report, so that the bars line up from one problem to the next.
  const width = String(Math.max(0, ...sorted.map((p) => p.line))).length;
  const head = `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`;
  const body = sorted.map((p) => {
    const first = `  ${file}:${p.line}:${p.col}: ${p.message}`;
    const text = lines?.[p.line - 1];
    return text === undefined || p.line < 1 ? first : `${first}\n${snippet(text.replace(/\r$/, ''), p, width)}`;
  });
  return [head, ...body].join('\n');
}

/**
 * The offending line under a line-number gutter and a caret under the column. The caret's indent
 * copies the line's tabs, so that it stays under the column whatever the terminal's tab width;
 * a column past the end of the line points just after its last character.
 */
function snippet(text: string, p: Problem, width: number): string {
  const col = Math.min(Math.max(p.col, 1), text.length + 1);
  const indent = text.slice(0, col - 1).replace(/[^\t]/g, ' ');
  const gutter = ' '.repeat(width);
  return `    ${String(p.line).padStart(width)} | ${text}`.trimEnd() + `\n    ${gutter} | ${indent}^`;
}

/** A bad tools.yaml: the user's configuration is at fault, not the generator. */
export class ToolsYamlError extends Error {
  /** `source`: the file's text, to show each problem's line with a caret; without it, positions only. */
  constructor(
    readonly file: string,
    readonly problems: Problem[],
    readonly source?: string,
  ) {
    super(formatProblems(file, problems, source));
    this.name = 'ToolsYamlError';
  }
}
