/** The demo account created on the first start of an empty store, so a newcomer can try everything. */
import { EmailTakenError, type AccountStore } from './store/accounts.ts';
import type { CampaignStore } from './store/campaigns.ts';
import type { LeadStore } from './store/leads.ts';

export const DEMO = { email: 'demo@example.com', password: 'demo-password', name: 'Demo Account' } as const;

/** Creates the demo account unless the store already has accounts; returns whether it did. */
export async function seedDemo(accounts: AccountStore, campaigns: CampaignStore, leads: LeadStore): Promise<boolean> {
  if ((await accounts.countAccounts()) > 0) return false;
  let created;
  try {
    created = await accounts.createAccount({
      name: DEMO.name,
      email: DEMO.email,
      password: DEMO.password,
      userName: 'Ada Lovelace',
      profiles: [
        { name: 'Ada Lovelace (LinkedIn)', channel: 'linkedin', timezone: 'Europe/London', daily_limit: 50 },
        { name: 'Ada Lovelace (email)', channel: 'email', timezone: 'Europe/London', daily_limit: 200 },
      ],
    });
  } catch (err) {
    // Another instance starting on the same empty store seeded it first.
    if (err instanceof EmailTakenError) return false;
    throw err;
  }
  const campaign = await campaigns.create({
    accountId: created.accountId,
    profileId: created.profileIds[0]!,
    name: 'Sample: founders in London',
    steps: [
      {
        name: 'Connect',
        type: 'connection_request',
        text: 'Hi {first_name}, I enjoyed reading about {company}. Would you like to connect?',
        fallback_text: 'Hi there, I enjoyed reading about your work. Would you like to connect?',
      },
      { name: 'Follow-up', type: 'message', text: 'Thanks for connecting, {name}! How is {company} doing?', auto_fallback: true, delay_days: 3 },
    ],
  });
  await leads.add(created.accountId, created.profileIds[0]!, campaign.id, [
    { first_name: 'Grace', last_name: 'Hopper', company: 'Cobol Labs', position: 'Founder', location: 'London', email: 'grace@example.com' },
    { first_name: 'Alan', last_name: 'Turing', company: 'Bletchley Analytics', position: 'CTO', profile_url: 'https://www.linkedin.com/in/alan-turing-demo' },
    { first_name: 'Katherine', last_name: 'Johnson', position: 'Head of Research', location: 'Hampton', email: 'katherine@example.com' },
  ]);
  return true;
}
