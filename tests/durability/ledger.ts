/**
 * What the writers were told: every write the server acknowledged (the ids it answered with), so
 * that the store can be compared with it afterwards; and every answer, with when it came and how
 * long it took, so that a window (a database outage) can be described by what clients saw.
 */
import { answerLabel, type Answer } from './tool-answer.ts';

export interface LeadInput {
  first_name: string;
  email: string;
}

export interface AcknowledgedLeads {
  campaignId: string;
  leads: LeadInput[];
  leadIds: string[];
}

export interface AcknowledgedMessage {
  leadId: string;
  key: string;
  messageId: string;
}

export interface AnswerSeen {
  at: number;
  ms: number;
  label: string;
}

export class Ledger {
  /** Campaign id -> name, for each create_campaign answered with a result. */
  readonly campaigns = new Map<string, string>();
  readonly leadBatches: AcknowledgedLeads[] = [];
  readonly messages: AcknowledgedMessage[] = [];
  readonly answers: AnswerSeen[] = [];
  /** Calls cut off by a kill (sent, never answered), whether or not they were asked again; a refused connection sent nothing. */
  interrupted = 0;
  /** Calls asked again after being cut off, whose answer was the first call's result (it had committed). */
  retriesAnsweredFirst = 0;

  get acknowledged(): number {
    return this.campaigns.size + this.leadBatches.length + this.messages.length;
  }

  see(answer: Answer, startedAt: number): void {
    const at = Date.now();
    this.answers.push({ at, ms: at - startedAt, label: answerLabel(answer) });
    if ((answer.kind === 'unreachable' && answer.error !== 'ECONNREFUSED') || answer.kind === 'hung') this.interrupted++;
  }

  /** How many answers of each kind came between `from` and `to` (ms since the epoch), and the slowest. */
  answersBetween(from: number, to: number): { counts: Record<string, number>; slowestMs: number } {
    const counts: Record<string, number> = {};
    let slowestMs = 0;
    for (const a of this.answers)
      if (a.at >= from && a.at - a.ms <= to) {
        counts[a.label] = (counts[a.label] ?? 0) + 1;
        slowestMs = Math.max(slowestMs, a.ms);
      }
    return { counts, slowestMs };
  }

  /** Answers of every kind but results: what the writers saw go wrong. */
  troubles(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const a of this.answers) if (a.label !== 'result') counts[a.label] = (counts[a.label] ?? 0) + 1;
    return counts;
  }
}
