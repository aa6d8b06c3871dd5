/**
 * One conversation as it happened: every message sent to the lead (the text as rendered and
 * sent, its step, when, and whether it was delivered or only a dry run) and every reply (received), oldest first.
 */
import type { ConversationHeading } from '../../store/dashboard.ts';
import type { Message } from '../../store/messages.ts';
import { html } from '../../html/html.ts';
import { page, when, type Viewer } from '../../html/layout.ts';
import { badge } from './table.ts';
import { messageStatusLabel } from './message-status.ts';
import { isUnconfirmed } from '../../domain/unconfirmed.ts';
import { SUPPRESSION_SOURCE } from './suppression-source.ts';

export interface ConversationView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  heading: ConversationHeading;
  messages: readonly Message[];
  /** Step ids of the campaign, to name each sequence message's step: "Step 2: Follow-up". */
  steps: ReadonlyMap<string, { position: number; name: string }>;
}

/** Why the lead's address is on the list: the recipient asked, or the account's owner put it there. */
function suppressedSentence(s: NonNullable<ConversationHeading['unsubscribed']>): string {
  return s.source === 'manual' ? `Suppressed: ${s.address} is on the account's suppression list` : `Unsubscribed: ${s.address} asked to receive no more email`;
}

function origin(message: Message, steps: ConversationView['steps']): string {
  if (message.direction === 'inbound') return message.automatic ? 'Automatic reply (not counted as a reply; the sequence goes on)' : 'Reply';
  const step = message.step_id === undefined ? undefined : steps.get(message.step_id);
  if (step) return `Step ${step.position}: ${step.name}`;
  return message.step_id === undefined ? 'Sent by the assistant (send_message)' : 'A step since removed';
}

export function conversationPage(view: ConversationView): string {
  const { heading } = view;
  const who = heading.lead_name ?? 'Conversation';
  return page({
    appName: view.appName,
    title: who,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'dashboard',
    body: html`<p>
        <a href="/app">← Dashboard</a
        >${heading.campaign_id && html` · <a href="/app/campaigns/${heading.campaign_id}">${heading.campaign_name ?? 'Campaign'}</a>`}
      </p>
      <h1>${who}</h1>
      <p class="lede">
        ${heading.lead_company && html`${heading.lead_company} · `}from ${heading.profile_name} · ${view.messages.length}
        message${view.messages.length === 1 ? '' : 's'} · <span class="mono">${heading.id}</span>
      </p>
      ${
        heading.unsubscribed &&
        html`<p class="alert info" role="status">
          ${suppressedSentence(heading.unsubscribed)} (${SUPPRESSION_SOURCE[heading.unsubscribed.source].phrase},
          <time datetime="${heading.unsubscribed.at}">${when(heading.unsubscribed.at)}</time>). No campaign of this account sends to it again:
          <a href="/app/suppressions">the suppression list</a>.
        </p>`
      }
      <ol class="timeline">
        ${view.messages.map(
          (m) =>
            html`<li class="${m.direction}">
              <div class="timeline-head">
                <strong>${origin(m, view.steps)}</strong> ${badge(isUnconfirmed(m) ? 'unconfirmed' : m.status, messageStatusLabel(m))}
                <span class="hint"
                  ><time datetime="${m.created_at}">${when(m.created_at)}</time>${
                    m.direction === 'outbound' &&
                    m.delivered_at &&
                    html` · ${isUnconfirmed(m) ? 'sent' : 'delivered'} <time datetime="${m.delivered_at}">${when(m.delivered_at)}</time>`
                  }</span
                >
              </div>
              ${m.subject && html`<p><strong>${m.subject}</strong></p>`}
              <p class="message-text">${m.text}</p>
              ${
                m.error &&
                // A queued message's error is why its last attempt did not go through; it is tried again.
                (m.status === 'queued'
                  ? html`<p class="alert info" role="status">Not sent yet: ${m.error}</p>`
                  : isUnconfirmed(m)
                    ? html`<p class="alert info">${m.error}</p>`
                    : html`<p class="alert error">${m.error}</p>`)
              }
            </li>`,
        )}
      </ol>
      ${!view.messages.length && html`<p class="empty">No messages yet.</p>`}`,
  });
}
