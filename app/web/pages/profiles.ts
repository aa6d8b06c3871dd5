/**
 * The Profiles page: the account's sender profiles with their mailboxes (host, port, user and
 * "password set", never the password), "Send a test email" for each connected mailbox, and the
 * form that adds an email profile; the edit page and the removal question use the same parts.
 * Every problem is written beside its field; no password is ever written into the page.
 */
import type { ShownProfile, ShownServer } from '../../store/profiles.ts';
import { html, type SafeHtml } from '../../html/html.ts';
import { page, type Viewer } from '../../html/layout.ts';
import type { ProfileField, ProfileFormValues } from '../profile-form.ts';
import { badge } from './table.ts';
import { noticeAlert, type Notice } from './notice.ts';

/** What the form shows: the values typed, the problems by field, and the mailbox check's refusals. */
export interface ProfileFormState {
  values: ProfileFormValues;
  errors: Partial<Record<ProfileField, string>>;
  /** What the servers said when the check failed (nothing was saved). */
  checkProblems?: readonly string[];
  /** Why the server could not save it at all (no KEY_ENCRYPTION_KEY on a public server). */
  refused?: string;
}

export interface ProfilesView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  profiles: readonly ShownProfile[];
  form: ProfileFormState;
  notice?: Notice;
}

const TLS_WORDS = { tls: 'TLS', starttls: 'STARTTLS', none: 'no TLS' } as const;

const server = (s: ShownServer) =>
  html`<span class="mono wrap">${s.host}:${s.port}</span> · ${TLS_WORDS[s.tls]} · user <span class="mono wrap">${s.user}</span> ·
    ${s.passwordSet ? 'password set' : 'no password'}`;

function profileCard(p: ShownProfile, view: ProfilesView): SafeHtml {
  const id = encodeURIComponent(p.id);
  const m = p.mailbox;
  return html`<section class="card" id="profile-${p.id}" aria-labelledby="profile-${p.id}-name">
    <h2 id="profile-${p.id}-name">${p.name} ${badge(p.status)}</h2>
    <dl class="facts">
      <dt>Channel</dt>
      <dd>${p.channel}</dd>
      ${
        m &&
        html`<dt>From</dt>
          <dd class="wrap">${m.fromName ? `${m.fromName} <${m.fromAddress}>` : m.fromAddress}</dd>`
      }
      <dt>Time zone</dt>
      <dd>${p.timezone}</dd>
      <dt>Daily limit</dt>
      <dd>${p.daily_limit} a day</dd>
      ${
        m &&
        html`<dt>SMTP</dt>
          <dd>${server(m.smtp)}</dd>
          <dt>IMAP</dt>
          <dd>${server(m.imap)}</dd>`
      }
      ${
        !m &&
        p.channel === 'email' &&
        html`<dt>Mailbox</dt>
          <dd>none connected: Edit connects one</dd>`
      }
      <dt>Id</dt>
      <dd class="mono wrap">${p.id}</dd>
    </dl>
    ${
      m &&
      html`<form class="stack section-gap" method="post" action="/app/profiles/${id}/test">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <div>
          <label for="test-to-${p.id}">Send a test email to</label>
          <input id="test-to-${p.id}" name="to" type="email" autocomplete="email" required value="${view.viewer.email}" />
        </div>
        <div><button type="submit" class="secondary">Send a test email</button></div>
      </form>`
    }
    <div class="actions section-gap">
      <a class="button secondary" href="/app/profiles/${id}/edit">Edit</a>
      <a class="button secondary" href="/app/profiles/${id}/remove">Remove</a>
    </div>
  </section>`;
}

/** One labelled input, its problem (if any) beside it and tied to it for screen readers. */
function field(
  state: ProfileFormState,
  name: ProfileField,
  label: string,
  options: { type?: 'text' | 'email' | 'password' | 'number'; hint?: string; autocomplete?: string; required?: boolean } = {},
): SafeHtml {
  const error = state.errors[name];
  const type = options.type ?? 'text';
  // A password is never written back: the input is always empty.
  const value = type === 'password' ? '' : (state.values[name as keyof ProfileFormValues] ?? '');
  const described = [options.hint && `${name}-hint`, error && `${name}-error`].filter(Boolean).join(' ');
  return html`<div>
    <label for="${name}">${label}</label>
    ${options.hint && html`<p class="hint" id="${name}-hint">${options.hint}</p>`}
    <input
      id="${name}"
      name="${name}"
      type="${type === 'number' ? 'text' : type}"
      ${type === 'number' ? html` inputmode="numeric"` : ''}
      ${type === 'password' ? '' : html` value="${value}"`}
      autocomplete="${options.autocomplete ?? 'off'}"
      ${options.required ? html` required` : ''}
      ${described ? html` aria-describedby="${described}"` : ''}
      ${error ? html` aria-invalid="true"` : ''}
    />
    ${error && html`<p class="field-error" id="${name}-error">${error}</p>`}
  </div>`;
}

function tlsSelect(state: ProfileFormState, protocol: 'smtp' | 'imap'): SafeHtml {
  const name = `${protocol}_tls` as const;
  const error = state.errors[name];
  const chosen = state.values[name];
  const option = (value: string, label: string) => html`<option value="${value}" ${chosen === value ? html` selected` : ''}>${label}</option>`;
  return html`<div>
    <label for="${name}">Security</label>
    <select id="${name}" name="${name}" aria-describedby="${name}-hint${error ? ` ${name}-error` : ''}" ${error ? html` aria-invalid="true"` : ''}>
      ${option('starttls', 'STARTTLS')} ${option('tls', 'TLS')} ${option('none', 'None (this machine only)')}
    </select>
    <p class="hint" id="${name}-hint">
      The port follows it when left blank: ${protocol === 'smtp' ? '587 for STARTTLS, 465 for TLS' : '143 for STARTTLS, 993 for TLS'}.
    </p>
    ${error && html`<p class="field-error" id="${name}-error">${error}</p>`}
  </div>`;
}

function serverFields(state: ProfileFormState, protocol: 'smtp' | 'imap', editing: boolean): SafeHtml {
  const label = protocol === 'smtp' ? 'SMTP (sending)' : 'IMAP (replies and bounces)';
  const word = protocol.toUpperCase();
  return html`<fieldset class="stack">
    <legend>${label}</legend>
    ${field(state, `${protocol}_host`, `${word} host`, { required: true })} ${tlsSelect(state, protocol)}
    ${field(state, `${protocol}_port`, `${word} port`, { type: 'number' })} ${field(state, `${protocol}_user`, `${word} user`, { required: true })}
    ${field(state, `${protocol}_password`, `${word} password`, {
      type: 'password',
      autocomplete: 'new-password',
      required: !editing,
      ...(editing && { hint: 'Leave blank to keep the saved password.' }),
    })}
  </fieldset>`;
}

/** The fields of a profile: its own, then (for an email profile) the mailbox. */
export function profileFields(state: ProfileFormState, options: { mailbox: boolean; editing: boolean }): SafeHtml {
  return html`${field(state, 'name', 'Profile name', { required: true })}
  ${
    options.mailbox &&
    html`${field(state, 'from_name', 'From name', { autocomplete: 'name' })}
    ${field(state, 'from_address', 'From address', { type: 'email', autocomplete: 'email', required: true })} ${serverFields(state, 'smtp', options.editing)}
    ${serverFields(state, 'imap', options.editing)}`
  }
  ${field(state, 'timezone', 'Time zone', { hint: 'An IANA name, such as Europe/London or America/New_York: the schedule and the daily limit follow it.', required: true })}
  ${field(state, 'daily_limit', 'Daily limit', { type: 'number', hint: 'The most messages this profile sends a day.', required: true })}`;
}

/** The summary above a form that was refused: what to fix, and what the servers said. */
export function formProblems(state: ProfileFormState): SafeHtml | false {
  const count = Object.keys(state.errors).length;
  if (state.refused) return html`<p class="alert error" role="alert" id="profile-check">Nothing was saved: ${state.refused}</p>`;
  if (state.checkProblems?.length)
    return html`<div class="alert error" role="alert" id="profile-check">
      <p>The mailbox check failed, so nothing was saved:</p>
      <ul>
        ${state.checkProblems.map((p) => html`<li>${p}</li>`)}
      </ul>
      <p>Fix the settings and try again.</p>
    </div>`;
  return (
    count > 0 &&
    html`<p class="alert error" role="alert">Nothing was saved: ${count === 1 ? 'one field needs' : `${count} fields need`} fixing (see below).</p>`
  );
}

export function profilesPage(view: ProfilesView): string {
  return page({
    appName: view.appName,
    title: 'Profiles',
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'profiles',
    body: html`<h1>Profiles</h1>
      <p class="lede">The profiles your campaigns send from. An email profile sends over its own mailbox's SMTP server and reads replies over IMAP.</p>
      ${noticeAlert(view.notice)} ${view.profiles.map((p) => profileCard(p, view))}
      <section class="card" aria-labelledby="add-title">
        <h2 id="add-title">Add an email profile</h2>
        <p class="hint">The mailbox is checked (SMTP and IMAP log in) before it is saved. The passwords are stored encrypted and never shown again.</p>
        ${formProblems(view.form)}
        <form class="stack" method="post" action="/app/profiles" novalidate>
          <input type="hidden" name="_csrf" value="${view.csrf}" />
          ${profileFields(view.form, { mailbox: true, editing: false })}
          <div><button type="submit">Check and add the profile</button></div>
        </form>
      </section>`,
  });
}

export interface ProfileEditView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  profile: ShownProfile;
  form: ProfileFormState;
}

export function profileEditPage(view: ProfileEditView): string {
  const mailbox = view.profile.channel === 'email';
  return page({
    appName: view.appName,
    title: `Edit ${view.profile.name}`,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'profiles',
    narrow: true,
    body: html`<div class="card">
      <h1>Edit ${view.profile.name}</h1>
      ${
        mailbox &&
        html`<p class="hint">
          ${
            view.profile.mailbox
              ? 'A changed mailbox is checked before it is saved.'
              : 'No mailbox is connected: give its From address, SMTP and IMAP to connect one. It is checked before it is saved.'
          }
        </p>`
      }
      ${formProblems(view.form)}
      <form class="stack" method="post" action="/app/profiles/${encodeURIComponent(view.profile.id)}" novalidate>
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        ${profileFields(view.form, { mailbox, editing: Boolean(view.profile.mailbox) })}
        <div class="actions">
          <button type="submit">${mailbox ? 'Check and save' : 'Save'}</button>
          <a class="button secondary" href="/app/profiles">Cancel</a>
        </div>
      </form>
    </div>`,
  });
}

export function profileRemovePage(view: { appName: string; viewer: Viewer; csrf: string; profile: ShownProfile }): string {
  const title = `Remove ${view.profile.name}?`;
  return page({
    appName: view.appName,
    title,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'profiles',
    narrow: true,
    body: html`<div class="dialog">
      <h1>${title}</h1>
      <p>
        Its mailbox settings and passwords are deleted. A profile with campaigns or conversations is kept for them, disconnected; one without is deleted. A
        profile whose campaign is running cannot be removed: pause the campaign first.
      </p>
      <form method="post" action="/app/profiles/${encodeURIComponent(view.profile.id)}/remove">
        <input type="hidden" name="_csrf" value="${view.csrf}" />
        <div class="actions">
          <button type="submit" class="danger">Remove the profile</button>
          <a class="button secondary" href="/app/profiles">Cancel</a>
        </div>
      </form>
    </div>`,
  });
}
