/**
 * Reading a password typed at a terminal, without echoing it: the terminal is put in raw mode and
 * the keys are read one by one (Enter ends, Backspace erases, Ctrl-C and Ctrl-D give up). The
 * prompt goes to stderr, so that stdout holds only the command's result.
 */
import type { ReadStream } from 'node:tty';

/** The person gave up at the prompt (Ctrl-C, or Ctrl-D on an empty line). */
export class PromptCancelledError extends Error {
  override name = 'PromptCancelledError';
}

/** Asks for one line and returns it; nothing typed is shown. */
export function promptHidden(
  question: string,
  input: ReadStream = process.stdin as ReadStream,
  output: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  // Raw mode before the prompt shows: whatever is typed once it shows is never echoed.
  input.setRawMode(true);
  output.write(question);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (outcome: () => void) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      outcome();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish(() => resolve(typed));
        if (ch === '\u0003' || (ch === '\u0004' && typed === '')) return finish(() => reject(new PromptCancelledError('cancelled at the password prompt')));
        if (ch === '\u007f' || ch === '\b') typed = [...typed].slice(0, -1).join('');
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}

/** A new password, typed twice at the terminal; undefined when the two differ. */
export async function promptNewPassword(): Promise<string | undefined> {
  const first = await promptHidden('New password: ');
  const second = await promptHidden('The same password again: ');
  return first === second ? first : undefined;
}
