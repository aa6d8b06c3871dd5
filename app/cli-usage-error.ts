/** A command of the admin CLI used wrongly: its message is printed with that command's usage (every command's when the command is unknown). */
export class UsageError extends Error {
  constructor(
    message: string,
    /** Whose usage to print: '' for every command; the CLI sets the command's own when none is given. */
    public command?: string,
  ) {
    super(message);
  }
}
