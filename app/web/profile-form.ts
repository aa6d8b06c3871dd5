/**
 * Reads the profile page's form: every field checked at once, each problem in words beside its
 * field, and what the person typed kept for the form shown again, except the passwords, which
 * are never written back into a page. A blank password on an edit keeps the saved one.
 */
import { clearTextAllowed, defaultPort, type MailProtocol, type MailServer, type TlsMode } from '../mailbox/mailbox-url.ts';
import type { Mailbox } from '../store/profiles.ts';

/** The form's fields as the page shows them again (no password among them). */
export interface ProfileFormValues {
  name: string;
  from_name: string;
  from_address: string;
  smtp_host: string;
  smtp_port: string;
  smtp_tls: string;
  smtp_user: string;
  imap_host: string;
  imap_port: string;
  imap_tls: string;
  imap_user: string;
  timezone: string;
  daily_limit: string;
}

export type ProfileField = keyof ProfileFormValues | 'smtp_password' | 'imap_password';

export interface ReadProfile {
  name: string;
  timezone: string;
  daily_limit: number;
  /** Absent for a LinkedIn profile's edit, which has no mailbox. */
  mailbox?: Mailbox;
}

export type ProfileFormResult =
  { ok: true; profile: ReadProfile; values: ProfileFormValues } | { ok: false; errors: Partial<Record<ProfileField, string>>; values: ProfileFormValues };

export const EMPTY_FORM: ProfileFormValues = {
  name: '',
  from_name: '',
  from_address: '',
  smtp_host: '',
  smtp_port: '',
  smtp_tls: 'starttls',
  smtp_user: '',
  imap_host: '',
  imap_port: '',
  imap_tls: 'starttls',
  imap_user: '',
  timezone: 'UTC',
  daily_limit: '50',
};

const TLS_MODES: readonly string[] = ['tls', 'starttls', 'none'];
const LABEL: Record<MailProtocol, string> = { smtp: 'SMTP', imap: 'IMAP' };

const text = (body: Record<string, unknown>, key: string): string => {
  const value = body[key];
  return typeof value === 'string' ? value.trim() : '';
};

/**
 * The profile a form describes. `mailbox` says whether it has one (an email profile); `saved`
 * holds the passwords already saved, for an edit, where a blank password keeps them.
 */
export function readProfileForm(body: unknown, options: { mailbox: boolean; saved?: { smtp: string; imap: string } }): ProfileFormResult {
  const form = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const values = Object.fromEntries(Object.keys(EMPTY_FORM).map((k) => [k, text(form, k)])) as unknown as ProfileFormValues;
  const errors: Partial<Record<ProfileField, string>> = {};

  if (!values.name) errors.name = 'Give the profile a name, such as "Nu (email)".';
  else if (values.name.length > 100) errors.name = 'The name is too long: 100 characters at most.';
  if (!timeZoneKnown(values.timezone))
    errors.timezone = `"${values.timezone}" is not a time zone: give an IANA name such as Europe/London or America/New_York.`;
  const dailyLimit = /^\d{1,6}$/.test(values.daily_limit) ? Number(values.daily_limit) : NaN;
  if (!(dailyLimit >= 1)) errors.daily_limit = 'The daily limit is a whole number of messages a day, 1 or more.';

  let mailbox: Mailbox | undefined;
  if (options.mailbox) {
    if (values.from_name.length > 100) errors.from_name = 'The From name is too long: 100 characters at most.';
    if (!/^[^@\s<>"]+@[^@\s<>"]+\.[^@\s<>"]+$/.test(values.from_address))
      errors.from_address = 'Give the address the messages come from, such as nu@example.com.';
    const smtp = readServer('smtp', form, values, errors, options.saved?.smtp);
    const imap = readServer('imap', form, values, errors, options.saved?.imap);
    if (smtp && imap) mailbox = { fromName: values.from_name, fromAddress: values.from_address, smtp, imap };
  }
  if (Object.keys(errors).length) return { ok: false, errors, values };
  return { ok: true, values, profile: { name: values.name, timezone: values.timezone, daily_limit: dailyLimit, ...(mailbox && { mailbox }) } };
}

function readServer(
  protocol: MailProtocol,
  form: Record<string, unknown>,
  values: ProfileFormValues,
  errors: Partial<Record<ProfileField, string>>,
  savedPassword: string | undefined,
): MailServer | undefined {
  const label = LABEL[protocol];
  const host = values[`${protocol}_host`];
  const tls = values[`${protocol}_tls`];
  const user = values[`${protocol}_user`];
  const typed = typeof form[`${protocol}_password`] === 'string' ? (form[`${protocol}_password`] as string) : '';
  const password = typed || savedPassword || '';
  const before = Object.keys(errors).length;
  if (!/^[A-Za-z0-9.-]+$|^\[?[0-9a-fA-F:]+\]?$/.test(host))
    errors[`${protocol}_host`] = `Give the ${label} server's host name, such as ${protocol}.example.com.`;
  if (!TLS_MODES.includes(tls)) errors[`${protocol}_tls`] = `Choose how ${label} is secured: TLS, STARTTLS or none.`;
  else if (tls === 'none' && host && !clearTextAllowed(host))
    errors[`${protocol}_tls`] =
      `Without TLS the password would cross the network in clear to ${host}: "none" is only for a server on this machine. Choose TLS or STARTTLS.`;
  const portText = values[`${protocol}_port`];
  const port = portText === '' && TLS_MODES.includes(tls) ? defaultPort(protocol, tls as TlsMode) : /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= 1 && port <= 65535))
    errors[`${protocol}_port`] =
      `The ${label} port is a number from 1 to 65535 (often ${defaultPort(protocol, 'starttls')} or ${defaultPort(protocol, 'tls')}).`;
  if (!user) errors[`${protocol}_user`] = `Give the ${label} user (often the mailbox's address).`;
  if (!password) errors[`${protocol}_password`] = `Give the ${label} password.`;
  if (Object.keys(errors).length > before) return undefined;
  return { host: host.replace(/^\[|\]$/g, ''), port, tls: tls as TlsMode, user, password };
}

function timeZoneKnown(zone: string): boolean {
  if (!zone) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The form's values for an existing profile (its edit page). */
export function formValuesOf(profile: {
  name: string;
  timezone: string;
  daily_limit: number;
  mailbox?: { fromName: string; fromAddress: string; smtp: Omit<MailServer, 'password'>; imap: Omit<MailServer, 'password'> };
}): ProfileFormValues {
  const m = profile.mailbox;
  return {
    ...EMPTY_FORM,
    name: profile.name,
    timezone: profile.timezone,
    daily_limit: String(profile.daily_limit),
    ...(m && {
      from_name: m.fromName,
      from_address: m.fromAddress,
      smtp_host: m.smtp.host,
      smtp_port: String(m.smtp.port),
      smtp_tls: m.smtp.tls,
      smtp_user: m.smtp.user,
      imap_host: m.imap.host,
      imap_port: String(m.imap.port),
      imap_tls: m.imap.tls,
      imap_user: m.imap.user,
    }),
  };
}
