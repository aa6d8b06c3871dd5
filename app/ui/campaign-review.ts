/**
 * The campaign review app (MCP Apps, `ui://outreach/campaign-review`), built with ext-apps' App and
 * no framework; `npm run gen` bundles it into app/ui/campaign-review.html. It shows the review that
 * review_campaign returns (the one the web's campaign page shows): each step for a few real leads,
 * fallbacks marked, the subjects, the schedule, the limits, the recipients and what a reply does.
 * Given create_campaign's or start_campaign's result instead, it asks review_campaign itself.
 *
 * Approve and start never approves anything by itself: it calls approve_campaign, which asks the
 * client to open the approval page of the web app, where the person decides, signed in (see
 * docs/decisions.md). Edit hands the conversation back to the assistant; Cancel leaves the
 * campaign as it is, as the web review's Cancel does. Lead data is untrusted: only textContent.
 */
import { App, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import type { ApprovalOutcome, ApprovalRequested, Campaign, CampaignReview, ReviewStep } from '../../generated/types.gen.ts';
import { fallbackLabel, leadsText, profileText, STATUS_WORDS } from '../domain/review-words.ts';

// The page's globals: the project's tsconfig has no DOM library (server code must not use it).
declare const document: any;

type Ref = { service_profile_id: string; campaign_id: string };
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: { type: string; text?: string }[] };

/** approve_campaign waits for the person's decision up to 10 minutes: the app waits a little longer. */
const APPROVAL_WAIT_MS = 11 * 60_000;

const byId = (id: string) => document.getElementById(id);
const ui = {
  title: byId('title'),
  status: byId('status'),
  notice: byId('notice'),
  factsSection: byId('facts-section'),
  facts: byId('facts'),
  stepsSection: byId('steps-section'),
  stepsHint: byId('steps-hint'),
  steps: byId('steps'),
  actions: byId('actions'),
  approveHint: byId('approve-hint'),
  approve: byId('approve'),
  edit: byId('edit'),
  cancel: byId('cancel'),
};

/** An element with text (never HTML: the review carries lead data) and children. */
function el(tag: string, options: { className?: string; text?: string } = {}, ...children: unknown[]): any {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  node.append(...children);
  return node;
}

function say(text: string, kind: 'info' | 'error' = 'info', focus = false): void {
  ui.notice.textContent = text;
  ui.notice.classList.toggle('error', kind === 'error');
  ui.notice.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  if (focus) ui.notice.focus();
}

function stepItem(step: ReviewStep): any {
  const item = el(
    'li',
    { className: 'step' },
    el('h3', { text: `Step ${step.position}: ${step.name}` }),
    el('p', { className: 'hint', text: `${step.type} · ${step.when}, within the schedule` }),
  );
  if (!step.samples.length) {
    if (step.subject !== undefined) item.append(el('p', { className: 'sample-subject', text: `Subject: ${step.subject}` }));
    item.append(el('p', { className: 'message-text', text: step.text }));
    return item;
  }
  const samples = el('ul', { className: 'samples' });
  for (const s of step.samples) {
    const fallback = fallbackLabel(s);
    const to = el('p', { className: 'sample-to' }, 'To ', el('strong', { text: s.lead_name }));
    if (fallback) to.append(' ', el('span', { className: 'badge fallback', text: fallback }));
    const card = el('li', { className: fallback ? 'sample uses-fallback' : 'sample' }, to);
    if (s.subject !== undefined) card.append(el('p', { className: 'sample-subject', text: `Subject: ${s.subject}` }));
    card.append(el('p', { className: 'message-text', text: s.text }));
    samples.append(card);
  }
  item.append(samples);
  return item;
}

let review: CampaignReview | undefined;

function show(next: CampaignReview): void {
  review = next;
  ui.title.textContent = next.name;
  ui.status.textContent = STATUS_WORDS[next.status];
  ui.status.className = `badge ${next.status}`;
  const facts: [string, string][] = [
    ['From', profileText(next.profile)],
    ['Recipients', leadsText(next.recipients)],
    ['Schedule', next.schedule.text],
    ['First messages', next.schedule.first_send ?? 'never: the schedule has no sending hours'],
    ['Daily limits', next.daily_limits.text],
    ['On a reply', next.on_reply],
  ];
  ui.facts.replaceChildren(...facts.flatMap(([term, value]) => [el('dt', { text: term }), el('dd', { text: value })]));
  const shown = next.steps[0]?.samples.length ?? 0;
  ui.stepsHint.textContent = shown
    ? `Each step as ${shown === 1 ? 'the first lead' : `the first ${shown} leads`} will get it. Where a lead has no value for a placeholder, the fallback is marked.`
    : 'No leads yet: each step is shown as written.';
  ui.steps.replaceChildren(...next.steps.map(stepItem));
  ui.factsSection.hidden = ui.stepsSection.hidden = false;
  // A decision is for a campaign that has not started: waiting, a draft, or paused (a resume).
  const decidable = next.status === 'awaiting_approval' || next.status === 'draft' || next.status === 'paused';
  ui.actions.hidden = ui.approveHint.hidden = !decidable;
  setBusy(false);
}

function setBusy(busy: boolean): void {
  for (const button of [ui.approve, ui.edit, ui.cancel]) button.disabled = busy;
}

/** A tool result's error text, for the person (the server's messages say what to do). */
const errorText = (result: ToolResult) => result.content?.find((c) => c.type === 'text')?.text ?? 'the server answered with an error';

const app = new App({ name: 'outreach-campaign-review', version: '1.0.0' });

/** Calls a tool of the server through the host; a refusal or an error result becomes the error's message. */
async function call(name: string, args: Ref, timeout?: number): Promise<Record<string, unknown>> {
  const result = (await app.callServerTool({ name, arguments: args }, timeout ? { timeout } : undefined)) as ToolResult;
  if (result.isError) throw new Error(errorText(result));
  return result.structuredContent ?? {};
}

const refOf = (r: CampaignReview): Ref => ({ service_profile_id: r.service_profile_id, campaign_id: r.campaign_id });

async function reload(ref: Ref): Promise<void> {
  show((await call('review_campaign', ref)).review as CampaignReview);
}

/** Tells the assistant what the person did here, for its next turn (hosts may not offer it: then nothing). */
function tellAssistant(text: string): void {
  app.updateModelContext({ content: [{ type: 'text', text }] }).catch(() => undefined);
}

/** Whatever the app was given: a review (review_campaign), or a campaign (create_campaign, start_campaign), which it then reviews. */
async function received(result: ToolResult): Promise<void> {
  if (result.isError) return say(errorText(result), 'error');
  const content = result.structuredContent ?? {};
  if (content.review) return (show(content.review as CampaignReview), say(''));
  const campaign = content.campaign as Campaign | undefined;
  if (!campaign) return say('This result names no campaign to review.', 'error');
  await reload({ service_profile_id: campaign.service_profile_id, campaign_id: campaign.id });
  const approval = content.approval as ApprovalRequested | undefined;
  say(approval ? approval.message : '');
}

async function approveAndStart(): Promise<void> {
  if (!review) return;
  const ref = refOf(review);
  setBusy(true);
  try {
    if (review.status !== 'awaiting_approval') {
      // A draft or a paused campaign starts through start_campaign: with the person's approval
      // policy on it then waits for them, and the approval below follows; with it off it runs now.
      const started = (await call('start_campaign', ref)) as { campaign: Campaign; approval?: ApprovalRequested };
      if (!started.approval) {
        await reload(ref);
        say('Started: it sends within its schedule.', 'info', true);
        return tellAssistant(`The user started campaign "${started.campaign.name}" from its review.`);
      }
    }
    say(
      'Your client now asks to open the approval page of the web app. Approve (or reject) the campaign there, signed in: this review shows the result when you decide. Nothing is sent until then.',
      'info',
      true,
    );
    const { approval } = (await call('approve_campaign', ref, APPROVAL_WAIT_MS)) as { approval: ApprovalOutcome };
    await reload(ref);
    say(approval.message, 'info', true);
    tellAssistant(approval.message);
  } catch (err) {
    setBusy(false);
    say(`Not started: ${err instanceof Error ? err.message : String(err)}`, 'error', true);
  }
}

async function askToEdit(): Promise<void> {
  if (!review) return;
  setBusy(true);
  try {
    const text = `Let's change campaign "${review.name}" (${review.campaign_id}) before I approve it: ask me what to change, then show me its review again.`;
    const answer = await app.sendMessage({ role: 'user', content: [{ type: 'text', text }] });
    if (answer.isError) throw new Error('the client did not take the message');
    say('Asked your assistant, in the conversation, to help you change it. Nothing is sent meanwhile.', 'info', true);
  } catch (err) {
    say(`Could not reach the conversation: ${err instanceof Error ? err.message : String(err)}. Tell your assistant what to change.`, 'error', true);
  } finally {
    setBusy(false);
  }
}

function cancel(): void {
  if (!review) return;
  const text =
    review.status === 'awaiting_approval'
      ? 'Left as it is: it waits for your approval and sends nothing. Approve it here later, or on its page in the web app.'
      : `Left as it is (${STATUS_WORDS[review.status].toLowerCase()}): it sends nothing.`;
  say(text, 'info', true);
  tellAssistant(`The user did not approve campaign "${review.name}" for now. ${text}`);
}

function applyHostTheme(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context?.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

app.ontoolresult = (result) =>
  void received(result as ToolResult).catch((err) => say(`Could not show the review: ${err instanceof Error ? err.message : String(err)}`, 'error'));
app.onhostcontextchanged = (context) => applyHostTheme(context);
ui.approve.addEventListener('click', () => void approveAndStart());
ui.edit.addEventListener('click', () => void askToEdit());
ui.cancel.addEventListener('click', cancel);
await app.connect();
applyHostTheme(app.getHostContext());
