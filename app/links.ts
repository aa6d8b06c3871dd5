/**
 * Absolute links to the web app's pages that tool results name for the person (a campaign to
 * review, an approval page), built from the configured public base URL: an assistant passes them
 * on as they are, and they must work from the person's browser, not only on this host.
 */
export interface AppLinks {
  /** The campaign's page: its review and, while it waits, Approve and start. */
  campaign(campaignId: string): string;
  /** The page of an approval an assistant asked for. */
  approval(approvalId: string): string;
}

export function appLinks(publicUrl: string): AppLinks {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    campaign: (id) => `${base}/app/campaigns/${encodeURIComponent(id)}`,
    approval: (id) => `${base}/app/approvals/${encodeURIComponent(id)}`,
  };
}
