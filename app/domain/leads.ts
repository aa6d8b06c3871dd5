/**
 * A lead as the rules see it: which built-in fields it has, what identifies it within a campaign,
 * and the values its placeholders take. The store keeps leads; these rules decide about them.
 */
import type { Lead } from '../../generated/types.gen.ts';
import type { LeadValues } from './placeholders.ts';

export const LEAD_FIELDS = ['first_name', 'last_name', 'company', 'position', 'title', 'location', 'industry', 'email', 'profile_url'] as const;
export type LeadField = (typeof LEAD_FIELDS)[number];

/** A lead as add_leads receives it. */
export type NewLead = Partial<Record<LeadField, string>> & { custom_fields?: Record<string, string | undefined> };

/** A lead's identity within a campaign: its email, else its profile URL, else name and company. */
export function dedupeKey(lead: NewLead): { key: string; on: string } | undefined {
  const email = lead.email?.trim().toLowerCase();
  if (email) return { key: `email:${email}`, on: 'email' };
  const url = lead.profile_url
    ?.trim()
    .toLowerCase()
    .replace(/^https?:\/\/(www\.)?/, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
  if (url) return { key: `url:${url}`, on: 'profile_url' };
  // Without email or profile URL, the first name is what identifies a person (last name and company alone do not).
  if (!lead.first_name?.trim()) return undefined;
  const name = [lead.first_name, lead.last_name, lead.company].map((v) => v?.trim().toLowerCase() ?? '').join('|');
  return { key: `name:${name}`, on: 'name and company' };
}

/** The placeholder values of a lead: built-in fields, `name` as the first name, and custom.<field>. */
export function leadValues(lead: Lead | NewLead): LeadValues {
  const values: Record<string, string | undefined> = { name: lead.first_name };
  for (const f of LEAD_FIELDS) values[f] = lead[f];
  for (const [k, v] of Object.entries(lead.custom_fields ?? {})) values[`custom.${k}`] = v;
  return values;
}
