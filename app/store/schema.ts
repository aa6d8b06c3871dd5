/** The database tables, as Kysely sees them. Timestamps are ISO-8601 text on both back-ends. */

export interface AccountsTable {
  id: string;
  name: string;
  status: 'active' | 'disabled';
  created_at: string;
}

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  name: string;
  password_hash: string;
  status: 'active' | 'disabled';
  created_at: string;
}

export interface ProfilesTable {
  id: string;
  account_id: string;
  name: string;
  channel: 'linkedin' | 'email';
  status: 'active' | 'paused' | 'disconnected';
  timezone: string;
  daily_limit: number;
  created_at: string;
}

export interface ProfileDailyUsageTable {
  profile_id: string;
  /** YYYY-MM-DD in the profile's time zone. */
  day: string;
  sent: number;
}

export interface GrantsTable {
  id: string;
  user_id: string;
  account_id: string;
  client_id: string;
  scope: string;
  created_at: string;
  revoked_at: string | null;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
  /** Set when a newer key replaced it; it still verifies tokens until they have all expired. */
  retired_at: string | null;
}

export interface CampaignsTable {
  id: string;
  account_id: string;
  profile_id: string;
  name: string;
  status: 'draft' | 'active' | 'paused' | 'completed' | 'archived';
  created_at: string;
  updated_at: string;
}

export interface StepsTable {
  id: string;
  campaign_id: string;
  position: number;
  name: string;
  type: string;
  text: string;
  subject: string | null;
  delay_days: number;
  fallback_text: string | null;
  /** 0/1 on SQLite, kept as an integer on both back-ends for one set of queries. */
  auto_fallback: number;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  profiles: ProfilesTable;
  profile_daily_usage: ProfileDailyUsageTable;
  grants: GrantsTable;
  signing_keys: SigningKeysTable;
  campaigns: CampaignsTable;
  steps: StepsTable;
}
