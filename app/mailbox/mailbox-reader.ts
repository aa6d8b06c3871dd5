/**
 * Reads one email profile's INBOX over IMAP (imapflow) while this instance holds its lease: every
 * email after the last UID processed is parsed (mailparser), classified (inbound-kind.ts) and
 * recorded in one transaction with the new place, so a restart goes on from there and processes
 * nothing twice. In a mailbox whose UIDs it does not know (just connected, or its UIDVALIDITY
 * changed) it first finds its place by the mail itself (first-unread.ts). New mail is noticed by
 * IDLE (imapflow idles between commands, and falls back to NOOP polling on a server without IDLE);
 * a read every `pollMs` besides catches anything missed.
 */
import { ImapFlow } from 'imapflow';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import type { MailServer } from './mailbox-url.ts';
import { inboundKind, messageIds } from './inbound-kind.ts';
import type { InboundMailStore, ReadEmail } from '../store/inbound-mail.ts';
import { LeaseLostError, mailboxKey, type MailboxPlace, type MailboxReaderStore } from '../store/mailbox-readers.ts';
import { firstUnread, type ListedEmail } from './first-unread.ts';

/** Told of a `subject: unsubscribe <token>` email (the List-Unsubscribe mailto); the unsubscribe feature applies it. */
export type UnsubscribeHandler = (request: { profileId: string; token: string; from?: string }) => Promise<void>;

export interface ReaderLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface MailboxReaderOptions {
  profileId: string;
  holder: string;
  imap: MailServer;
  place: MailboxPlace;
  store: MailboxReaderStore;
  inbound: InboundMailStore;
  onUnsubscribe: UnsubscribeHandler;
  logger: ReaderLogger;
  pollMs: number;
  /** Called once the connection is gone (closed, failed, or the lease lost): the readers start another later. */
  onClosed: () => void;
}

/** The longest text kept of an email, as the inbound webhook takes it. */
const MAX_TEXT = 20_000;

export class MailboxReader {
  private client: ImapFlow | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private uidValidity = '';
  private lastUid: number;
  /** The mailbox this reader reads (its user at its host): the place it writes is that mailbox's. */
  private readonly key: string;

  constructor(private readonly options: MailboxReaderOptions) {
    this.lastUid = options.place.lastUid;
    this.key = mailboxKey(options.imap);
  }

  /** Connects, reads what arrived since the last place, then follows the INBOX until stop(). */
  async start(): Promise<void> {
    const { imap, logger, profileId } = this.options;
    const client = new ImapFlow({
      host: imap.host,
      port: imap.port,
      secure: imap.tls === 'tls',
      doSTARTTLS: imap.tls === 'starttls' ? true : imap.tls === 'none' ? false : undefined,
      auth: { user: imap.user, pass: imap.password },
      logger: false,
      connectionTimeout: 30_000,
      greetingTimeout: 30_000,
      // Restart IDLE now and then: some servers and middleboxes drop a connection silent for 30 min.
      maxIdleTime: 5 * 60_000,
    } as ConstructorParameters<typeof ImapFlow>[0]);
    this.client = client;
    // A failure is also emitted as an event; without a listener it would end the process.
    client.on('error', (err: Error) => logger.warn({ profileId, err: err.message }, 'mailbox connection failed'));
    client.on('close', () => this.closed());
    client.on('exists', () => this.read());
    try {
      await client.connect();
      const inbox = await client.mailboxOpen('INBOX');
      this.uidValidity = String(inbox.uidValidity);
      const { place } = this.options;
      const otherMailbox = place.mailboxKey !== null && place.mailboxKey !== this.key;
      if (place.uidValidity === null || place.uidValidity !== this.uidValidity || otherMailbox)
        await this.findPlace(client, inbox.exists, Number(inbox.uidNext), otherMailbox);
    } catch (err) {
      logger.warn({ profileId, err: (err as Error).message }, 'could not open the mailbox; trying again later');
      client.close();
      this.closed();
      return;
    }
    this.timer = setInterval(() => this.read(), this.options.pollMs);
    this.timer.unref();
    this.read();
  }

  /**
   * In a mailbox whose UIDs mean nothing to the stored place, the UID to read after, by the mail
   * itself: after the last email processed, or from what arrived since (first-unread.ts); stored
   * at once, so that a restart does not look again.
   */
  private async findPlace(client: ImapFlow, exists: number, uidNext: number, otherMailbox: boolean): Promise<void> {
    const { place, profileId, holder, store, logger } = this.options;
    const emails: ListedEmail[] = [];
    if (exists > 0)
      for await (const m of client.fetch('1:*', { uid: true, internalDate: true, envelope: true }))
        emails.push({ uid: m.uid, arrival: new Date(m.internalDate ?? 0), ...(m.envelope?.messageId && { messageId: m.envelope.messageId }) });
    // A place in another mailbox (stored before mailboxes were told apart) says nothing of this one: from now on.
    const since = otherMailbox ? { arrival: new Date().toISOString(), messageId: null } : { arrival: place.lastArrival, messageId: place.lastMessageId };
    this.lastUid = firstUnread(emails, since, uidNext);
    await store.advance(profileId, holder, this.key, { uidValidity: this.uidValidity, uid: this.lastUid });
    const why = place.uidValidity === null || otherMailbox ? 'a mailbox new to its profile' : 'the mailbox UIDVALIDITY changed';
    logger.info({ profileId, afterUid: this.lastUid, of: emails.length }, `${why}: reading the INBOX after the mail already there or processed`);
  }

  /** Stops following the mailbox and logs out, after the email being recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.reading?.catch(() => undefined);
    await this.client?.logout().catch(() => this.client?.close());
  }

  /** One pass at a time; a request during a pass makes one more pass after it. */
  private read(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readNew()
      .catch((err: unknown) => {
        if (err instanceof LeaseLostError) {
          // Told first, so that the readers start this mailbox again if this instance holds its lease again.
          this.options.onClosed();
          return void this.stop();
        }
        this.options.logger.warn({ profileId: this.options.profileId, err: (err as Error).message }, 'reading the mailbox failed; trying again');
      })
      .finally(() => {
        this.reading = undefined;
        if (this.again) {
          this.again = false;
          this.read();
        }
      });
  }

  private async readNew(): Promise<void> {
    const client = this.client;
    if (!client?.usable) return;
    // Collected first: imapflow runs no other command while a FETCH streams.
    const fresh: { uid: number; source: Buffer; arrival: Date }[] = [];
    for await (const m of client.fetch(`${this.lastUid + 1}:*`, { uid: true, source: true, internalDate: true }, { uid: true }))
      // `N:*` names the last message even when its UID is below N.
      if (m.uid > this.lastUid && m.source) fresh.push({ uid: m.uid, source: m.source, arrival: new Date(m.internalDate ?? 0) });
    for (const { uid, source, arrival } of fresh.sort((a, b) => a.uid - b.uid)) {
      if (this.stopped) return;
      await this.process(uid, arrival, await simpleParser(source));
      this.lastUid = uid;
    }
  }

  private async process(uid: number, arrival: Date, mail: ParsedMail): Promise<void> {
    const { profileId, holder, store, inbound } = this.options;
    const kind = inboundKind(mail);
    const email = readEmail(mail);
    const place = { uidValidity: this.uidValidity, uid, arrival: arrival.toISOString(), messageId: email.messageId ?? null };
    if (kind.kind === 'unsubscribe') {
      // Outside the transaction: the handler writes through the store on its own. Applying a token twice changes nothing.
      await this.options.onUnsubscribe({ profileId, token: kind.token, ...(email.from && { from: email.from }) });
      return store.advance(profileId, holder, this.key, place);
    }
    await store.advance(profileId, holder, this.key, place, async (trx) => {
      if (kind.kind === 'bounce') await inbound.recordBounce(trx, profileId, kind);
      else await inbound.recordAnswer(trx, profileId, email, kind.kind === 'automatic');
    });
  }

  private closed(): void {
    clearInterval(this.timer);
    if (this.stopped) return;
    this.stopped = true;
    this.options.onClosed();
  }
}

function firstAddress(value: AddressObject | AddressObject[] | undefined): string | undefined {
  const list = Array.isArray(value) ? value : value ? [value] : [];
  return list
    .flatMap((a) => a.value)
    .find((a) => a.address)
    ?.address?.toLowerCase();
}

/** What the store needs of an email: its ids, the ids it answers (In-Reply-To first), sender, subject, text. */
export function readEmail(mail: ParsedMail): ReadEmail {
  const answers = [...messageIds(mail.inReplyTo), ...messageIds(mail.references).reverse()];
  const text = (mail.text ?? '').trim() || (mail.html ? '(an email in HTML only)' : '(an empty email)');
  const from = firstAddress(mail.from);
  const messageId = messageIds(mail.messageId)[0];
  return {
    answers: [...new Set(answers)],
    text: text.slice(0, MAX_TEXT),
    ...(messageId && { messageId }),
    ...(from && { from }),
    ...(mail.subject && { subject: mail.subject }),
  };
}
