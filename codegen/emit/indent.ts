/**
 * Re-indents generated TypeScript by bracket depth, two spaces a level. ts-morph's formatter
 * gives the same result but costs ~5 ms a file; this costs microseconds and is deterministic.
 * It is meant for generated code only: brackets inside strings and comments are ignored, and a
 * JSDoc block keeps its ` * ` alignment.
 */

const OPEN = new Set(['{', '[', '(']);
const CLOSE = new Set(['}', ']', ')']);

/** The depth change of a line, and how many closers it starts with (those dedent the line itself). */
function scan(line: string): { delta: number; leadingClosers: number } {
  let delta = 0;
  let leadingClosers = 0;
  let seenOther = false;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      quote = c;
      seenOther = true;
    } else if (c === '/' && line[i + 1] === '/') break;
    else if (OPEN.has(c)) {
      delta++;
      seenOther = true;
    } else if (CLOSE.has(c)) {
      delta--;
      if (!seenOther) leadingClosers++;
    } else if (c !== ' ' && c !== '\t') seenOther = true;
  }
  return { delta, leadingClosers };
}

export function reindent(text: string): string {
  let depth = 0;
  let inComment = false;
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') {
      out.push('');
      continue;
    }
    const pad = '  '.repeat(Math.max(depth, 0));
    if (inComment || line.startsWith('/*')) {
      // Inside a block comment: ` * text` lines align under the opening `/**`.
      const continues = inComment && !line.startsWith('/*');
      out.push(pad + (continues && line.startsWith('*') ? ` ${line}` : line));
      inComment = !line.includes('*/');
      continue;
    }
    const { delta, leadingClosers } = scan(line);
    out.push('  '.repeat(Math.max(depth - leadingClosers, 0)) + line);
    depth += delta;
  }
  return out.join('\n');
}
