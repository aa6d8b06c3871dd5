/**
 * Imported by every test helper that creates accounts: password hashes made by a test process
 * cost N = 2^12 instead of OWASP's 2^17 (a third of a second and 128 MiB each), since the tests
 * make hundreds of accounts. The server under test never sees this: it runs as `npm start` does
 * and verifies each hash at the cost the hash names.
 */
import { lowerPasswordCostForTests } from '../../app/store/passwords.ts';

export const TEST_PASSWORD_LOG_N = 12;
lowerPasswordCostForTests(TEST_PASSWORD_LOG_N);
