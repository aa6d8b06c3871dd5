/**
 * The SMTP point of no return, made visible: a nodemailer `stream` plugin that holds back the end
 * of a message's data (the `.` line after which the server owns the message) until a callback has
 * run. The outbox uses it to write down, before that line goes out, that this attempt reached it:
 * an attempt cut off before it cannot have been accepted and is sent again; one cut off after it
 * is not (docs/decisions.md, "Exactly once over SMTP").
 *
 * The gate is the last stage of the message stream, and reads nothing until the SMTP connection
 * pipes the message into DATA (after the server's 354): the callback therefore runs once the whole
 * message was handed to the connection, just before the end of data. DKIM signing happens inside
 * the gate, not as nodemailer's own last stage, because the signer reads its whole input at once.
 */
import { Readable } from 'node:stream';
import type { Transporter } from 'nodemailer';
import type { DkimKey } from './dkim-keys.ts';

/** What a message sent through a gated transport carries besides nodemailer's own options. */
export interface GatedMail {
  /** Runs before the end of data goes out; if it throws, the end is never sent and the send fails. */
  beforeEndOfData: () => Promise<void>;
  /** Signs the message with this key (instead of nodemailer's `dkim` option). */
  signWith?: DkimKey;
}

/** Installs the gate on a transport: every message sent through it must carry GatedMail's fields. */
export async function gateEndOfData(transporter: Transporter): Promise<void> {
  // On first use, as smtp-transport.ts loads nodemailer.
  const { default: DKIM } = await import('nodemailer/lib/dkim');
  transporter.use('stream', (mail, done) => {
    const { beforeEndOfData, signWith } = mail.data as unknown as GatedMail;
    mail.message.processFunc((input: Readable) => gated(signWith ? new DKIM(signWith).sign(input) : input, beforeEndOfData ?? (async () => undefined)));
    done();
  });
}

/** `source` as a stream that ends only after `beforeEnd` resolved, and reads nothing until read. */
export function gated(source: Readable, beforeEnd: () => Promise<void>): Readable {
  return Readable.from(
    (async function* () {
      for await (const chunk of source) yield chunk as Buffer;
      await beforeEnd();
    })(),
    { objectMode: false },
  );
}
