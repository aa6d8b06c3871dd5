/**
 * The time as the sequencing sees it. Everything that decides or records when a message is due,
 * sent, or counted against a day takes a Clock, so tests can run a week in milliseconds.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** A clock that stands still until moved: for tests and simulations. */
export class ManualClock {
  private at: number;

  constructor(start: Date | string | number) {
    this.at = new Date(start).getTime();
  }

  readonly now: Clock = () => new Date(this.at);

  set(to: Date | string | number): void {
    this.at = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.at += ms;
  }
}
