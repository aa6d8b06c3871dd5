/**
 * (g): the sequencer's rate, in a process of its own on a fresh store: one campaign of
 * BENCH_SEQ_LEADS leads on one profile (three steps, no window, no daily limit in the way), started;
 * then ticks at the moment step 1 is due, until every lead's step 1 is an outbox message. Reports
 * messages queued per second of ticking, the ticks it took, and memory.
 * Env: DATA_DIR or DATABASE_URL (the store), BENCH_SEQ_LEADS (10000).
 * Message: `done` {leads, queued, ms, perSecond, ticks, rssMb, heapMb}.
 */
import { ManualClock } from '../../app/clock.ts';
import { loadConfig } from '../../app/config.ts';
import { Sequencer } from '../../app/sequencing/sequencer.ts';
import { openService } from '../../app/server.ts';
import { SequencingStore } from '../../app/store/sequencing.ts';
import { send } from '../lib/children.ts';

const leads = Number(process.env.BENCH_SEQ_LEADS ?? 10_000);
const service = await openService(loadConfig({ ...process.env, PUBLIC_URL: 'http://localhost:3996' }));
const owner = await service.accounts.createAccount({
  name: 'Bench',
  email: 'bench-sequencer@example.com',
  password: 'password-1',
  profiles: [{ name: 'P', channel: 'email', timezone: 'UTC', daily_limit: 1_000_000 }],
});
const profileId = owner.profileIds[0]!;
const campaign = await service.campaigns.create({
  accountId: owner.accountId,
  profileId,
  name: 'Bench',
  steps: [
    { name: 'Intro', type: 'email', subject: 'Hello', text: 'Hi {first_name}, I saw {company}.', fallback_text: 'Hi there, I saw your work.' },
    { name: 'Nudge', type: 'email', text: 'Any thoughts, {name}?', auto_fallback: true, delay_days: 2 },
    { name: 'Last', type: 'email', text: 'Last note.', delay_days: 3 },
  ],
});
for (let i = 0; i < leads; i += 1000)
  await service.leads.add(
    owner.accountId,
    profileId,
    campaign.id,
    Array.from({ length: Math.min(1000, leads - i) }, (_, j) => ({
      first_name: `Lead${i + j}`,
      ...((i + j) % 2 === 0 && { company: `Company ${i + j}` }),
      email: `lead${i + j}@example.com`,
    })),
  );
await service.campaigns.transition(owner.accountId, profileId, campaign.id, 'start');

const clock = new ManualClock('2026-11-23T10:00:00.000Z');
const sequencer = new Sequencer(new SequencingStore(service.db, service.kind), { clock: clock.now, logger: { error: (o, m) => console.error(m, o) } });
// The first tick schedules step 1 for every lead (due at once) and starts sending; every tick counts.
let queued = 0;
let ticks = 0;
const t0 = performance.now();
while (queued < leads && ticks < 1000) {
  queued += (await sequencer.tick()).queued;
  ticks++;
}
const ms = performance.now() - t0;
const memory = process.memoryUsage();
send('done', { leads, queued, ms, perSecond: (queued / ms) * 1000, ticks, rssMb: memory.rss / 1e6, heapMb: memory.heapUsed / 1e6 });
await service.db.destroy();
