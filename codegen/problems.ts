/** Problems found in a tools.yaml, reported all at once with file, line and column. */

export interface Problem {
  line: number;
  col: number;
  message: string;
}

/** A bad tools.yaml: the user's configuration is at fault, not the generator. */
export class ToolsYamlError extends Error {
  constructor(
    readonly file: string,
    readonly problems: Problem[],
  ) {
    const sorted = [...problems].sort((a, b) => a.line - b.line || a.col - b.col);
    super(
      `${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n` + sorted.map((p) => `  ${file}:${p.line}:${p.col}: ${p.message}`).join('\n'),
    );
    this.name = 'ToolsYamlError';
  }
}
