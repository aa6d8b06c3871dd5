/**
 * What an email read from a profile's mailbox is: a bounce (a delivery status notification), an
 * unsubscribe request (the List-Unsubscribe mailto), an automatic answer (out of office), or a
 * reply. Pure: it reads mailparser's result and nothing else, so each rule is unit-tested.
 * docs/decisions.md ("Automatic answers") says why each header counts.
 */
import type { ParsedMail } from 'mailparser';

export type InboundKind =
  | { kind: 'bounce'; originalMessageIds: string[]; recipients: string[]; diagnostic: string }
  | { kind: 'unsubscribe'; token: string }
  | { kind: 'automatic' }
  | { kind: 'reply' };

/** The Message-IDs (`<id@domain>`) a header holds, in order. */
export function messageIds(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(' ') : (value ?? '');
  return text.match(/<[^<>\s]+>/g) ?? [];
}

const header = (mail: ParsedMail, name: string): string => {
  const line = mail.headerLines.find((h) => h.key === name)?.line;
  return line ? line.slice(line.indexOf(':') + 1).trim() : '';
};

/** Out-of-office subjects in the languages most often met; the last hint, after the headers. */
const AUTOMATIC_SUBJECT =
  /^(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesenheit|absence|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica)\b/i;

export function inboundKind(mail: ParsedMail): InboundKind {
  const bounce = deliveryStatus(mail);
  if (bounce) return bounce;
  const subject = (mail.subject ?? '').trim();
  // The mailto of List-Unsubscribe: `subject: unsubscribe <token>` (unsubscribe/links.ts).
  const unsubscribe = /^unsubscribe\s+(\S+)$/i.exec(subject);
  if (unsubscribe) return { kind: 'unsubscribe', token: unsubscribe[1]! };
  if (isAutomatic(mail, subject)) return { kind: 'automatic' };
  return { kind: 'reply' };
}

/** RFC 3834 (Auto-Submitted), Microsoft's and others' markers, Precedence, then the subject. */
function isAutomatic(mail: ParsedMail, subject: string): boolean {
  const autoSubmitted = header(mail, 'auto-submitted').toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return true;
  if (header(mail, 'x-autoreply') || header(mail, 'x-autorespond') || header(mail, 'x-auto-response-suppress').match(/\b(oof|autoreply|all)\b/i)) return true;
  if (/^(auto_reply|bulk|junk)$/i.test(header(mail, 'precedence'))) return true;
  return AUTOMATIC_SUBJECT.test(subject.replace(/^(re|aw|fwd?):\s*/i, ''));
}

/**
 * A DSN (RFC 3464: multipart/report; report-type=delivery-status) that reports a failure: the
 * Message-IDs of the returned message (its attached headers), the Final-Recipients, and the
 * server's words. A DSN that only reports a delay or a relay is not a bounce.
 */
function deliveryStatus(mail: ParsedMail): InboundKind | undefined {
  const contentType = header(mail, 'content-type').toLowerCase().replace(/\s+/g, '');
  if (!contentType.startsWith('multipart/report') || !contentType.includes('report-type=delivery-status')) return undefined;
  // mailparser keeps the message/delivery-status part as an attachment or, as for Postfix's, in the text.
  const status = mail.attachments.find((a) => a.contentType === 'message/delivery-status')?.content.toString('utf8') ?? mail.text ?? '';
  const unfolded = status.replace(/\r?\n[ \t]+/g, ' ');
  const fields = (name: string) => [...unfolded.matchAll(new RegExp(`^${name}:\\s*(.*)$`, 'gim'))].map((m) => m[1]!.trim());
  const actions = fields('Action').map((a) => a.toLowerCase());
  if (actions.length && !actions.includes('failed')) return undefined;
  const recipients = fields('Final-Recipient').map((r) => r.replace(/^rfc822;\s*/i, '').toLowerCase());
  const returned = mail.attachments.find((a) => a.contentType === 'message/rfc822' || a.contentType === 'text/rfc822-headers');
  const returnedHeaders = returned
    ? returned.content
        .toString('utf8')
        .split(/\r?\n\r?\n/)[0]!
        .replace(/\r?\n[ \t]+/g, ' ')
    : '';
  // Without the returned headers, the Message-IDs the notice quotes in its text.
  const idLine = /^Message-ID:\s*(.*)$/im.exec(returnedHeaders) ?? /Message-ID:\s*(<[^<>\s]+>)/i.exec(mail.text ?? '');
  const diagnostic = fields('Diagnostic-Code')[0]?.replace(/^smtp;\s*/i, '') ?? fields('Status')[0] ?? 'the receiving server returned the message';
  return { kind: 'bounce', originalMessageIds: messageIds(idLine?.[1]), recipients, diagnostic };
}
