/**
 * What each channel can send: a LinkedIn profile sends messages, connection requests, InMails and
 * follow-ups; an email profile sends emails and follow-ups (a follow-up goes in the lead's thread,
 * on whichever channel it is).
 */
import type { Profile, StepType } from '../../generated/types.gen.ts';

export type Channel = Profile['channel'];

export const STEP_TYPES_BY_CHANNEL = {
  linkedin: ['message', 'connection_request', 'inmail', 'follow_up'],
  email: ['email', 'follow_up'],
} as const satisfies Record<Channel, readonly StepType[]>;

export interface StepTypeViolation {
  step: number;
  step_name: string;
  type: StepType;
  channel: Channel;
  allowed: readonly StepType[];
}

/** The step's type when the channel cannot send it (steps numbered from 1 in campaign order), or undefined. */
export function stepTypeViolation(channel: Channel, step: { name: string; type: StepType }, position: number): StepTypeViolation | undefined {
  const allowed: readonly StepType[] = STEP_TYPES_BY_CHANNEL[channel];
  if (allowed.includes(step.type)) return undefined;
  return { step: position, step_name: step.name, type: step.type, channel, allowed };
}
