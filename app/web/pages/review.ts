/**
 * A campaign's review, as the person sees it before it starts (the data: domain/campaign-review.ts,
 * the same as `review_campaign` returns): who it writes to, when, the daily limits, what a reply
 * does, and each step as a few real leads would get it, fallbacks marked. Shown on an awaiting
 * campaign's page, on the approval page an assistant opened, and before a draft is started; its
 * forms carry the revision shown, so that an approval is for what the person saw.
 */
import type { CampaignReview, ReviewSample, ReviewStep } from '../../store/campaign-review.ts';
import { html, type SafeHtml } from '../../html/html.ts';
import { page, type Viewer } from '../../html/layout.ts';
import { fallbackLabel, leadsText, profileText } from '../../domain/review-words.ts';

/** One step as one lead gets it; where the lead lacks a value, which fallback stands in, said in words. */
function sampleCard(s: ReviewSample): SafeHtml {
  const fallback = fallbackLabel(s);
  return html`<li class="sample${fallback ? ' uses-fallback' : ''}">
    <p class="sample-to">
      To <strong>${s.lead_name}</strong>
      ${fallback && html`<span class="badge fallback">${fallback}</span>`}
    </p>
    ${s.subject !== undefined && html`<p class="sample-subject">Subject: ${s.subject}</p>`}
    <p class="message-text">${s.text}</p>
  </li>`;
}

function stepBlock(step: ReviewStep): SafeHtml {
  return html`<li class="review-step">
    <h3>Step ${step.position}: ${step.name}</h3>
    <p class="hint">${step.type} · ${step.when}, within the schedule</p>
    ${
      step.samples.length
        ? html`<ul class="samples">
            ${step.samples.map(sampleCard)}
          </ul>`
        : html`<p class="message-text">${step.subject !== undefined && html`<strong>Subject: ${step.subject}</strong> `}${step.text}</p>`
    }
  </li>`;
}

/** The review's facts and steps, in a card. */
export function reviewSection(review: CampaignReview): SafeHtml {
  const shown = review.steps[0]?.samples.length ?? 0;
  return html`<section class="card review" aria-labelledby="review-title">
    <h2 id="review-title">What it will send</h2>
    <dl class="facts">
      <dt>From</dt>
      <dd>${profileText(review.profile)}</dd>
      <dt>Recipients</dt>
      <dd>${leadsText(review.recipients)}</dd>
      <dt>Schedule</dt>
      <dd>${review.schedule.text}</dd>
      <dt>First messages</dt>
      <dd>${review.schedule.first_send ?? 'never: the schedule has no sending hours'}</dd>
      <dt>Daily limits</dt>
      <dd>${review.daily_limits.text}</dd>
      <dt>On a reply</dt>
      <dd>${review.on_reply}</dd>
    </dl>
    <p class="hint section-gap">
      ${
        shown
          ? `Each step as ${shown === 1 ? 'the first lead' : `the first ${shown} leads`} will get it. Where a lead has no value for a placeholder, the fallback is marked.`
          : 'No leads yet: each step is shown as written.'
      }
    </p>
    <ol class="review-steps">
      ${review.steps.map(stepBlock)}
    </ol>
  </section>`;
}

/**
 * The person's decision on a review: Approve and start (or Start, for their own draft) posts the
 * revision shown; Reject (while it waits) returns it to where it was; without it, Cancel leads back.
 */
export function decisionForms(options: { review: CampaignReview; csrf: string; approveAction: string; approveLabel: string; rejectAction?: string }): SafeHtml {
  const { review, csrf } = options;
  const hidden = html`<input type="hidden" name="_csrf" value="${csrf}" /><input type="hidden" name="revision" value="${review.revision}" />`;
  return html`<div class="actions decision">
    <form method="post" action="${options.approveAction}">
      ${hidden}
      <button type="submit">${options.approveLabel}</button>
    </form>
    ${
      options.rejectAction
        ? html`<form method="post" action="${options.rejectAction}">
            ${hidden}
            <button type="submit" class="secondary">Reject</button>
          </form>`
        : html`<a class="button secondary" href="/app/campaigns/${review.campaign_id}">Cancel</a>`
    }
  </div>`;
}

export interface ReviewPageView {
  appName: string;
  viewer: Viewer;
  csrf: string;
  review: CampaignReview;
  title: string;
  /** What the page is for, above the review. */
  lede: string | SafeHtml;
  decision: SafeHtml;
  notice?: { kind: 'success' | 'info' | 'error'; text: string };
}

/** A page of its own for a review: the approval page an assistant opened, and Start for a draft. */
export function reviewPage(view: ReviewPageView): string {
  const { review } = view;
  return page({
    appName: view.appName,
    title: view.title,
    viewer: view.viewer,
    csrf: view.csrf,
    section: 'dashboard',
    body: html`<p><a href="/app/campaigns/${review.campaign_id}">← ${review.name}</a></p>
      ${view.notice && html`<p class="alert ${view.notice.kind}" role="${view.notice.kind === 'error' ? 'alert' : 'status'}">${view.notice.text}</p>`}
      <h1>${view.title}</h1>
      <p class="lede">${view.lede}</p>
      ${reviewSection(review)} ${view.decision}`,
  });
}
