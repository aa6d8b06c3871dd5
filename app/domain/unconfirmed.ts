/**
 * A message handed to its mail server whole (end of data included) whose answer never came: the
 * outbox does not send it again, since the server most likely holds it, but no server said it
 * accepted it, so it is never called delivered. Its status stays `delivered` for the sequence (the
 * next step goes on) and its `error` says this, on the conversation page and in get_conversation;
 * the statistics count it apart (docs/decisions.md, "Exactly once over SMTP").
 */
export const UNCONFIRMED_MESSAGE =
  'unconfirmed: the mail server received the whole message, but its answer never came (the connection was lost), so whether it accepted it is not known; it is not sent again';

/** Whether a message was handed over without the server's answer: delivered, and its `error` says so. */
export function isUnconfirmed(message: { status: string; error?: string | null | undefined }): boolean {
  return message.status === 'delivered' && (message.error?.startsWith('unconfirmed:') ?? false);
}
