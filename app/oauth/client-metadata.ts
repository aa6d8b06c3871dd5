/**
 * oidc-provider's `extraClientMetadata`: our checks of what a client registers, run when it
 * registers (RFC 7591), when its client ID metadata document is read, and whenever a stored
 * client is loaded (so a client stored before a rule existed is refused too). Redirect URIs
 * (redirect-uris.ts) are refused as `invalid_redirect_uri`, the name as `invalid_client_metadata`.
 */
import { errors, type Configuration } from 'oidc-provider';
import { redirectUriRules } from './redirect-uris.ts';
import { unprintable, visible } from './unprintable.ts';

/** What is wrong with a client's name, said so that its developer can fix it. */
export function clientNameProblem(name: string): string | undefined {
  const bad = unprintable(name, 'controls');
  return bad === undefined ? undefined : `client_name "${visible(name)}" contains ${bad}; register a name of printable characters on one line`;
}

export const clientMetadataRules: NonNullable<Configuration['extraClientMetadata']> = {
  properties: ['redirect_uris', 'client_name'],
  validator(ctx, key, value, metadata) {
    if (key === 'redirect_uris') redirectUriRules.validator!(ctx, key, value, metadata);
    // Anything but a string is oidc-provider's to refuse, after this.
    if (key === 'client_name' && typeof value === 'string') {
      const problem = clientNameProblem(value);
      if (problem) throw new errors.InvalidClientMetadata(problem);
    }
  },
};
