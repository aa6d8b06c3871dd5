/**
 * The isolation front: account A's token against every tool, resource and prompt the server
 * declares (read from the generated definition: a new one is attacked without a line here), each
 * id parameter in turn pointing at account B's thing (A's own ids in the others), all of them at
 * B's, and at guessed ids. Each must be refused with the declared not-found error of that id
 * (rendered from the catalog, so the exact text), or, for an optional filter of a read-only one,
 * answer without anything of B's; and the store must be exactly as it was. A surface that takes no
 * id is reported as such, and its answer to A is checked for B's ids and names.
 */
import { randomBytes } from 'node:crypto';
import { errorCatalog } from '../../generated/errors.gen.ts';
import { snapshot } from '../helpers/outreach.ts';
import { postMcp } from '../helpers/server.ts';
import { bearer, request } from '../helpers/mcp-calls.ts';
import { GotThrough, type Attack } from './attack.ts';
import { expectNoneOf } from './expect.ts';
import { completions, idKind, surfaces, type Answer, type IdValues, type Surface } from './surfaces.ts';
import type { Party, Target } from './target.ts';

/** Everything of B's that must never reach A: ids and the names B gave its things. */
const secretsOf = (b: Party) => [...Object.values(b.ids), ...b.profileIds, b.accountId, b.userId, ...b.names];

/** The declared not-found message of an id kind, rendered for this call's ids; undefined when the surface does not declare it. */
function notFound(surface: Surface, kind: string, values: IdValues): string | undefined {
  const code = `${kind.toUpperCase()}_NOT_FOUND`;
  const definition = errorCatalog[code];
  if (!surface.errors.includes(code) || !definition) return undefined;
  return definition.message.replace(/\{\{(\w+)\}\}/g, (_, param: string) => values[idKind(param) ?? param] ?? `{{${param}}}`);
}

/** The messages a refusal may have: the attacked kind's not-found when declared, else any declared not-found of its id kinds. */
function acceptedRefusals(surface: Surface, kind: string | undefined, values: IdValues): string[] {
  const own = kind === undefined ? undefined : notFound(surface, kind, values);
  if (own) return [own];
  return surface.idParams.map((p) => notFound(surface, p.kind, values)).filter((m): m is string => m !== undefined);
}

const UNEXPECTED = / failed unexpectedly \(reference /;

/** Judges one answer: refused as expected, or a success that is allowed (an optional filter of a read-only surface) and shows nothing of B's. */
function judge(answer: Answer, expected: string[], options: { anyRefusal: boolean; filterMayAnswer: boolean; secrets: string[]; call: string }): void {
  if ('refused' in answer) {
    if (UNEXPECTED.test(answer.refused)) throw new GotThrough(`${options.call}: failed inside instead of refusing: "${answer.refused}"`);
    if (options.anyRefusal || expected.includes(answer.refused)) return;
    throw new GotThrough(
      `${options.call}: refused with "${answer.refused}", expected ${expected.map((m) => `"${m}"`).join(' or ') || 'a declared not-found error'}`,
    );
  }
  if (!options.filterMayAnswer) throw new GotThrough(`${options.call}: accepted: ${answer.accepted.slice(0, 400)}`);
  expectNoneOf(answer.accepted, options.secrets, options.call);
}

/** Runs calls and proves the store did not change. */
async function storeUnchanged(target: Target, what: string, calls: () => Promise<void>): Promise<void> {
  const before = await snapshot(target.server.admin.db);
  await calls();
  const after = await snapshot(target.server.admin.db);
  const changed = Object.keys(before).filter((table) => JSON.stringify(before[table]) !== JSON.stringify(after[table]));
  if (changed.length) throw new GotThrough(`${what} changed the store (tables ${changed.join(', ')})`);
}

/** Ids someone without B's could try: random ids of the right shape, B's id altered, wildcards and SQL. */
function guesses(real: string): string[] {
  const prefix = real.includes('_') ? real.slice(0, real.indexOf('_') + 1) : '';
  const random = prefix + [...randomBytes(16)].map((b) => '0123456789abcdefghjkmnpqrstvwxyz'[b & 31]).join('');
  return [random, real.toUpperCase(), `${real} `, ` ${real}`, `${real}%`, `${prefix}%`, '%', '*', `${prefix}_`, "' OR '1'='1", `${real}' --`, `../${real}`];
}

const label = (s: Surface) => `${s.kind} ${s.name}`;

function foreignId(surface: Surface, param: Surface['idParams'][number]): Attack<Target> {
  return {
    front: 'isolation',
    name: `${label(surface)}: ${param.name} = B's ${param.kind}, A's own ids elsewhere`,
    expects: `refused with the declared ${param.kind.toUpperCase()}_NOT_FOUND message${param.required ? '' : ' (or, being an optional filter of a read-only surface, an answer with nothing of B)'}; store unchanged`,
    async run(target) {
      const theirs = (target.b.ids as unknown as IdValues)[param.kind];
      if (theirs === undefined) throw new Error(`B owns no ${param.kind}: give the parties one in tests/attack/target.ts`);
      const values = { ...(target.a.ids as unknown as IdValues), [param.kind]: theirs };
      const call = `${label(surface)}(${param.name}=${theirs})`;
      await storeUnchanged(target, call, async () =>
        judge(await surface.call(target, target.a.token, values, param.name), acceptedRefusals(surface, param.kind, values), {
          anyRefusal: false,
          filterMayAnswer: !param.required && surface.readOnly,
          secrets: secretsOf(target.b),
          call,
        }),
      );
    },
  };
}

function allOfB(surface: Surface): Attack<Target> {
  return {
    front: 'isolation',
    name: `${label(surface)}: every id B's`,
    expects: 'refused with a declared not-found message of one of its ids; store unchanged',
    async run(target) {
      const values = target.b.ids as unknown as IdValues;
      const call = `${label(surface)} with B's ids`;
      await storeUnchanged(target, call, async () =>
        judge(await surface.call(target, target.a.token, values), acceptedRefusals(surface, undefined, values), {
          anyRefusal: false,
          filterMayAnswer: false,
          secrets: secretsOf(target.b),
          call,
        }),
      );
    },
  };
}

function guessedIds(surface: Surface, param: Surface['idParams'][number]): Attack<Target> {
  return {
    front: 'isolation',
    name: `${label(surface)}: ${param.name} guessed (random, B's altered, wildcards, SQL)`,
    expects: `each refused with the declared ${param.kind.toUpperCase()}_NOT_FOUND message naming the guess${param.required ? '' : ' (or, an optional filter of a read-only surface, an answer with nothing of B)'}; store unchanged`,
    async run(target) {
      const theirs = (target.b.ids as unknown as IdValues)[param.kind] ?? `${param.kind}_x`;
      await storeUnchanged(target, `${label(surface)} with guessed ${param.name}`, async () => {
        for (const guess of guesses(theirs)) {
          const values = { ...(target.a.ids as unknown as IdValues), [param.kind]: guess };
          const expected = acceptedRefusals(surface, param.kind, values);
          judge(await surface.call(target, target.a.token, values, param.name), expected, {
            anyRefusal: !expected.length,
            filterMayAnswer: !param.required && surface.readOnly,
            secrets: secretsOf(target.b),
            call: `${label(surface)}(${param.name}=${JSON.stringify(guess)})`,
          });
        }
      });
    },
  };
}

function noIdArgument(surface: Surface): Attack<Target> {
  return {
    front: 'isolation',
    name: `${label(surface)}: no id argument; A's answer checked for B's data`,
    expects: "an answer to A with none of B's ids or names; store unchanged",
    async run(target) {
      await storeUnchanged(target, label(surface), async () => {
        const answer = await surface.call(target, target.a.token, target.a.ids as unknown as IdValues);
        if ('accepted' in answer) expectNoneOf(answer.accepted, secretsOf(target.b), label(surface));
      });
    },
  };
}

function completionOf(c: ReturnType<typeof completions>[number]): Attack<Target> {
  return {
    front: 'isolation',
    name: `completion of ${c.label} ${c.argument}: suggests none of B's ids, with A's or B's ids as context`,
    expects: "suggestions (or a refusal) with none of B's ids or names",
    async run(target) {
      const theirs = (target.b.ids as unknown as IdValues)[c.kind] ?? '';
      for (const [context, prefixes] of [
        [target.a.ids, ['', theirs.slice(0, 4), theirs]],
        [target.b.ids, ['', theirs]],
      ] as const) {
        const args = Object.fromEntries(c.context.filter((v) => v !== c.argument && idKind(v)).map((v) => [v, (context as unknown as IdValues)[idKind(v)!]]));
        for (const value of prefixes) {
          const res = await postMcp(
            target.server.mcpUrl,
            request('completion/complete', { ref: c.ref, argument: { name: c.argument, value }, context: { arguments: args } }),
            bearer(target.a.token),
          );
          if (res.status >= 500 || UNEXPECTED.test(res.text)) throw new GotThrough(`completion failed inside: HTTP ${res.status} ${res.text.slice(0, 300)}`);
          expectNoneOf(res.text, secretsOf(target.b), `completion of ${c.argument} from "${value}" with ${JSON.stringify(args)}`);
        }
      }
    },
  };
}

export function isolationAttacks(): Attack<Target>[] {
  const attacks: Attack<Target>[] = [];
  for (const surface of surfaces()) {
    if (!surface.idParams.length) {
      attacks.push(noIdArgument(surface));
      continue;
    }
    attacks.push(allOfB(surface));
    for (const param of surface.idParams) attacks.push(foreignId(surface, param), guessedIds(surface, param));
  }
  return [...attacks, ...completions().map(completionOf)];
}

/** The surfaces that take no id, for the summary ("no id argument"). */
export function surfacesWithoutIds(): string[] {
  return surfaces()
    .filter((s) => !s.idParams.length)
    .map(label);
}
