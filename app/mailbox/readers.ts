/**
 * Starts and stops a MailboxReader for each active email profile with a mailbox, on the instances
 * that hold its lease (store/mailbox-readers.ts). Every `refreshMs` it renews its leases, takes
 * the mailboxes no instance reads (a new profile, an instance that stopped), restarts a reader
 * whose connection ended, and one whose IMAP settings changed. Intervals: docs/decisions.md.
 */
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { ProfileStore } from '../store/profiles.ts';
import type { InboundMailStore } from '../store/inbound-mail.ts';
import type { MailboxReaderStore } from '../store/mailbox-readers.ts';
import type { MailboxReader, ReaderLogger, UnsubscribeHandler } from './mailbox-reader.ts';

export interface MailboxReadersOptions {
  store: MailboxReaderStore;
  inbound: InboundMailStore;
  profiles: Pick<ProfileStore, 'mailbox'>;
  logger: ReaderLogger & { error(obj: object, msg: string): void };
  /** Applies an unsubscribe mailto's token; none yet: the email is passed over (counted as read). */
  onUnsubscribe?: UnsubscribeHandler;
  /** How often leases are renewed and the profiles looked at again (default 15 s). */
  refreshMs?: number;
  /** How long a lease lasts without renewal: another instance takes the mailbox after it (default 60 s). */
  leaseMs?: number;
  /** A read of each INBOX besides IDLE's news (default 60 s). */
  pollMs?: number;
}

export class MailboxReaders {
  /** This instance, as its leases name it: its host and process, for whoever looks at mailbox_readers. */
  readonly holder = `${hostname()}/${process.pid}/reader-${randomUUID()}`;
  private readonly running = new Map<string, { reader: MailboxReader; settings: string; closed: boolean }>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly options: MailboxReadersOptions) {}

  /** Starts (or, after stop(), starts again from the places stored): refreshes now and every refreshMs. */
  start(): void {
    this.stopping = false;
    const every = this.options.refreshMs ?? 15_000;
    this.timer ??= setInterval(() => void this.refresh(), every);
    this.timer.unref();
    void this.refresh();
  }

  /** One look at the profiles and leases; concurrent calls share it. Never throws: a failure is logged. */
  refresh(): Promise<void> {
    this.refreshing ??= this.refreshOnce()
      .catch((err: unknown) => this.options.logger.error({ err }, 'mailbox readers: refresh failed'))
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.refreshing;
    await Promise.all([...this.running.keys()].map((id) => this.stopReader(id)));
  }

  private async refreshOnce(): Promise<void> {
    if (this.stopping) return;
    const { store } = this.options;
    const wanted = new Set(await store.profilesToRead());
    for (const profileId of this.running.keys()) if (!wanted.has(profileId)) await this.stopReader(profileId);
    for (const profileId of wanted) {
      if (this.stopping) return;
      const place = await store.claim(profileId, this.holder, this.options.leaseMs ?? 60_000);
      const current = this.running.get(profileId);
      if (!place) {
        // Another instance holds it (this one stalled past its lease): leave the mailbox to it.
        if (current) await this.stopReader(profileId, false);
        continue;
      }
      const mailbox = await this.options.profiles.mailbox(profileId);
      if (!mailbox) continue;
      const { host, port, tls, user, password } = mailbox.imap;
      const settings = createHash('sha256')
        .update(JSON.stringify([host, port, tls, user, password]))
        .digest('base64url');
      if (current && !current.closed && current.settings === settings) continue;
      if (current) await current.reader.stop();
      const entry = { settings, closed: false } as { reader: MailboxReader; settings: string; closed: boolean };
      // The reader, with imapflow and mailparser, loads when a mailbox is first read, not at start
      // (as smtp-transport.ts loads nodemailer).
      const { MailboxReader } = await import('./mailbox-reader.ts');
      entry.reader = new MailboxReader({
        profileId,
        holder: this.holder,
        imap: mailbox.imap,
        place,
        store,
        inbound: this.options.inbound,
        onUnsubscribe: this.options.onUnsubscribe ?? (async () => undefined),
        logger: this.options.logger,
        pollMs: this.options.pollMs ?? 60_000,
        onClosed: () => (entry.closed = true),
      });
      this.running.set(profileId, entry);
      this.options.logger.info({ profileId, holder: this.holder }, 'reading the mailbox of a profile (this instance holds its lease)');
      await entry.reader.start();
    }
  }

  private async stopReader(profileId: string, release = true): Promise<void> {
    const entry = this.running.get(profileId);
    this.running.delete(profileId);
    await entry?.reader.stop();
    if (release) await this.options.store.release(profileId, this.holder).catch(() => undefined);
  }
}
