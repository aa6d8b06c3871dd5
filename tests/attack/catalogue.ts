/** Every attack of the suite, front by front, in the order they run (those that rotate keys or spend limits last in their front). */
import type { Attack } from './attack.ts';
import { httpAttacks } from './http-attacks.ts';
import { isolationAttacks } from './isolation-attacks.ts';
import { oauthAttacks } from './oauth-attacks.ts';
import type { Target } from './target.ts';
import { tokenAttacks } from './token-attacks.ts';
import { webAttacks } from './web-attacks.ts';
import { webRuntimeAttacks } from './web-runtime-attacks.ts';

export function catalogue(): Attack<Target>[] {
  return [...tokenAttacks(), ...isolationAttacks(), ...httpAttacks(), ...webAttacks(), ...webRuntimeAttacks(), ...oauthAttacks()];
}
