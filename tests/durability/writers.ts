/**
 * Concurrent writers over MCP HTTP with a real token, as an assistant would write: each round
 * creates a campaign, adds a few leads to it and sends the first lead a message with an
 * idempotency key. A call cut off by a kill is asked again (on the next instance, as a load
 * balancer would) when the tool makes that safe: add_leads (a lead already there is a duplicate
 * pointing at it) and send_message (the same key answers the first message); create_campaign
 * offers no such key, so a cut-off one is not repeated (it may or may not have been written, and
 * was never acknowledged). Every result is written in the ledger.
 */
import type { Ledger, LeadInput } from './ledger.ts';
import { askTool, isTransient, type Answer } from './tool-answer.ts';

export interface WriterTarget {
  mcpUrls: string[];
  token: string;
  profileId: string;
}

const LEADS_PER_ROUND = 3;
/** How long a safe-to-repeat call is asked again before the writer gives up on it. */
const GIVE_UP_AFTER_MS = 120_000;
const RETRY_PAUSE_MS = 100;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Writer {
  private calls = 0;

  constructor(
    private readonly id: number,
    private readonly target: WriterTarget,
    private readonly ledger: Ledger,
  ) {}

  /** One call on the next instance in turn, seen by the ledger. */
  private async ask(name: string, args: Record<string, unknown>): Promise<Answer> {
    const urls = this.target.mcpUrls;
    const url = urls[(this.id + this.calls++) % urls.length]!;
    const startedAt = Date.now();
    const answer = await askTool(url, this.target.token, name, { service_profile_id: this.target.profileId, ...args });
    this.ledger.see(answer, startedAt);
    return answer;
  }

  /** Asks until the answer is not a transient failure; also says whether an attempt was cut off first. */
  private async askUntilAnswered(name: string, args: Record<string, unknown>): Promise<{ answer: Answer; cutOff: boolean }> {
    const deadline = Date.now() + GIVE_UP_AFTER_MS;
    let cutOff = false;
    for (;;) {
      const answer = await this.ask(name, args);
      if (!isTransient(answer) || Date.now() > deadline) return { answer, cutOff };
      if (answer.kind === 'unreachable' || answer.kind === 'hung') cutOff = true;
      await pause(RETRY_PAUSE_MS);
    }
  }

  async round(n: number): Promise<void> {
    const tag = `w${this.id}-r${n}`;
    const created = await this.ask('create_campaign', { name: `Durability ${tag}`, steps: [{ name: 'Hello', type: 'email', text: 'Hello' }] });
    if (created.kind !== 'result') return void (await pause(RETRY_PAUSE_MS));
    const campaignId: string = created.value.campaign.id;
    this.ledger.campaigns.set(campaignId, `Durability ${tag}`);

    const leads: LeadInput[] = Array.from({ length: LEADS_PER_ROUND }, (_, i) => ({ first_name: `Lead ${i}`, email: `${tag}-l${i}@example.com` }));
    const added = await this.askUntilAnswered('add_leads', { campaign_id: campaignId, leads });
    if (added.answer.kind !== 'result') return;
    const results: Array<{ status: string; lead_id: string }> = added.answer.value.results;
    if (added.cutOff && results.some((r) => r.status === 'duplicate')) this.ledger.retriesAnsweredFirst++;
    const leadIds = results.map((r) => r.lead_id);
    this.ledger.leadBatches.push({ campaignId, leads, leadIds });

    const key = `${tag}-hello`;
    const sent = await this.askUntilAnswered('send_message', { lead_id: leadIds[0], text: 'Hi {first_name}', auto_fallback: true, idempotency_key: key });
    if (sent.answer.kind !== 'result') return;
    if (sent.cutOff && sent.answer.value.replayed) this.ledger.retriesAnsweredFirst++;
    this.ledger.messages.push({ leadId: leadIds[0]!, key, messageId: sent.answer.value.message.id });
  }
}

/** Runs `count` writers until `stop()`; stop() resolves when each has finished its round. */
export function startWriters(count: number, target: WriterTarget, ledger: Ledger): { stop(): Promise<void> } {
  let stopping = false;
  const loops = Array.from({ length: count }, async (_, id) => {
    const writer = new Writer(id, target, ledger);
    for (let n = 0; !stopping; n++) await writer.round(n);
  });
  return {
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
  };
}
