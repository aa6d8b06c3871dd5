/**
 * DKIM keys for the domains the profiles send from: DKIM_KEYS_DIR holds one PEM private key per
 * domain, named `<domain>.<selector>.pem` (the selector is what follows the domain's last dot, so
 * `example.com.mail2026.pem` signs example.com mail with selector mail2026, whose public key is
 * published at mail2026._domainkey.example.com). Read once at start; a new key needs a restart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import path from 'node:path';

export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

const KEY_FILE = /^(.+)\.([A-Za-z0-9_-]+)\.pem$/;

/** The keys of a directory by domain; throws naming the file that is not a usable key. */
export function loadDkimKeys(dir: string): Map<string, DkimKey> {
  const keys = new Map<string, DkimKey>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new Error(`DKIM_KEYS_DIR ${dir} cannot be read (${(err as NodeJS.ErrnoException).code}): give a directory of <domain>.<selector>.pem files`);
  }
  for (const name of names.sort()) {
    const match = KEY_FILE.exec(name);
    if (!match) continue;
    const [, domain, selector] = match as unknown as [string, string, string];
    const file = path.join(dir, name);
    const privateKey = readFileSync(file, 'utf8');
    try {
      createPrivateKey(privateKey);
    } catch {
      throw new Error(
        `DKIM_KEYS_DIR: ${file} is not a PEM private key (make one with \`openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out ${name}\`)`,
      );
    }
    const domainName = domain.toLowerCase();
    if (keys.has(domainName)) throw new Error(`DKIM_KEYS_DIR has two keys for ${domainName}: keep one <domain>.<selector>.pem per domain`);
    keys.set(domainName, { domainName, keySelector: selector, privateKey });
  }
  return keys;
}
