/**
 * What a campaign email says on the wire, apart from how it is sent: From the profile's mailbox,
 * To the lead, its own Message-ID, the thread it continues (In-Reply-To, References, "Re: " and
 * the first subject unless the step has its own), a plain-text body, and the one-click
 * unsubscribe headers. Pure: the SMTP adapter adds the transport and the DKIM key.
 */
import type { SendMailOptions } from 'nodemailer';
import type { Mailbox } from '../store/profiles.ts';
import { unsubscribeHeaders } from '../unsubscribe/links.ts';
import type { OutgoingMessage } from './adapter.ts';

export interface UnsubscribeSettings {
  publicUrl: string;
  secret: string;
}

/** The domain of an address (what follows its last @), lower-cased. */
export function addressDomain(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * The Message-ID of a message: made of its id, so that a message sent again (a retry after a
 * crash between the server's answer and our commit) carries the same one, and a receiver that
 * deduplicates by Message-ID shows it once.
 */
export function emailMessageId(messageId: string, fromAddress: string): string {
  return `<${messageId}@${addressDomain(fromAddress)}>`;
}

/** The subject of a follow-up without one of its own: "Re: " and the thread's first subject. */
function threadSubject(message: OutgoingMessage): string {
  if (message.subject) return message.subject;
  const first = message.thread.find((t) => t.subject)?.subject;
  if (!first) return '';
  return /^re:/i.test(first) ? first : `Re: ${first}`;
}

/** The message nodemailer sends for `message` to `to` from `mailbox`. */
export function emailFor(message: OutgoingMessage, to: string, mailbox: Mailbox, unsubscribe: UnsubscribeSettings): SendMailOptions & { messageId: string } {
  const previous = message.thread.map((t) => t.emailMessageId);
  return {
    from: { name: mailbox.fromName, address: mailbox.fromAddress },
    to,
    subject: threadSubject(message),
    text: message.text,
    messageId: emailMessageId(message.id, mailbox.fromAddress),
    ...(previous.length && { inReplyTo: previous.at(-1), references: previous }),
    headers: unsubscribeHeaders(unsubscribe.publicUrl, unsubscribe.secret, { accountId: message.account_id, email: to }, mailbox.fromAddress),
  };
}
