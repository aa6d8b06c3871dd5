/**
 * The isolation front: account A's token against every tool, resource and prompt the server
 * declares (read from the generated definition: a new one is attacked without a line here), each
 * id parameter in turn pointing at account B's thing (A's own ids in the others), all of them at
 * B's, and at guessed ids. Each must be refused with the declared not-found error of that id
 * (rendered from the catalog, so the exact text), or, for an optional filter of a read-only one,
 * answer without anything of B's; and the store must be exactly as it was. Where the attacked id
 * has no not-found error of its own (another id's, or any refusal, will do), the same call with
 * A's own ids must first be answered with A's data: a surface that refuses everyone refuses nothing. A surface that takes no id is reported as
 * such, and answers A with A's data and none of B's (and B with none of A's); completion suggests A's
 * own ids to A, and none of them to B.
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

/** Whether an answer shows any of the party's ids or names. */
const showsDataOf = (p: Party, text: string) => secretsOf(p).some((s) => text.includes(s));

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
    if (UNEXPECTED.test(answer.refused) || answer.status >= 500)
      throw new GotThrough(`${options.call}: failed inside instead of refusing: HTTP ${answer.status} "${answer.refused}"`);
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

/**
 * The positive control: the call with the caller's own ids (`only`: an optional id parameter to
 * pass) is answered, and the answer shows the caller's data. A surface that writes is called by a
 * party of its own, so that A's things stay as the later attacks expect them.
 */
async function ownCallAnswers(target: Target, surface: Surface, only?: string): Promise<void> {
  const own = surface.readOnly ? target.a : await target.freshParty();
  const answer = await surface.call(target, own.token, own.ids as unknown as IdValues, only);
  const call = `${label(surface)} with the caller's own ids`;
  if ('refused' in answer) throw new Error(`the positive control failed: ${call} was refused (HTTP ${answer.status}): "${answer.refused}"`);
  if (!showsDataOf(own, answer.accepted))
    throw new Error(`the positive control failed: ${call} answered with none of its data: ${answer.accepted.slice(0, 400)}`);
}

/**
 * Without a not-found error of the attacked id's own kind, a refusal may be another id's not-found
 * (or, with none declared, any refusal): it says something only if A's own id is answered.
 */
async function controlUnlessOwnNotFound(target: Target, surface: Surface, param: Surface['idParams'][number]): Promise<void> {
  if (!notFound(surface, param.kind, target.a.ids as unknown as IdValues)) await ownCallAnswers(target, surface, param.name);
}

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
      await controlUnlessOwnNotFound(target, surface, param);
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
      await controlUnlessOwnNotFound(target, surface, param);
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
    name: `${label(surface)}: no id argument; A's answer shows A's data and none of B's`,
    expects: "an answer to A with A's data (a fixed resource the same for every account excepted) and none of B's, and to B with none of A's; store unchanged",
    async run(target) {
      await storeUnchanged(target, label(surface), async () => {
        const answers: string[] = [];
        for (const [caller, other, who] of [
          [target.a, target.b, 'A'],
          [target.b, target.a, 'B'],
        ] as const) {
          const answer = await surface.call(target, caller.token, caller.ids as unknown as IdValues);
          if ('refused' in answer)
            throw new Error(`the positive control failed: ${label(surface)} refused ${who} (HTTP ${answer.status}): "${answer.refused}"`);
          expectNoneOf(answer.accepted, secretsOf(other), `${label(surface)} to ${who}`);
          answers.push(answer.accepted);
        }
        // A tool or prompt answers about the caller's account: it shows A's things (an empty answer
        // to everyone would show nobody's). A resource at a fixed URI may be one document for every
        // account (the reference): only one that answers A and B differently must show A's.
        if ((surface.kind !== 'resource' || answers[0] !== answers[1]) && !showsDataOf(target.a, answers[0]!))
          throw new Error(`the positive control failed: ${label(surface)} shows A none of A's data: ${answers[0]!.slice(0, 400)}`);
      });
    },
  };
}

function completionOf(c: ReturnType<typeof completions>[number]): Attack<Target> {
  return {
    front: 'isolation',
    name: `completion of ${c.label} ${c.argument}: suggests A's own ids to A, and none of B's, with A's or B's ids as context; none of A's to B`,
    expects: "A's own id among the suggestions to A in A's context; suggestions (or a refusal) with none of the other account's ids or names otherwise",
    async run(target) {
      /** The suggestions to `caller` with `context`'s ids as the other arguments, or the refusal's message. */
      const complete = async (caller: Party, context: Party, value: string) => {
        const args = Object.fromEntries(
          c.context.filter((v) => v !== c.argument && idKind(v)).map((v) => [v, (context.ids as unknown as IdValues)[idKind(v)!]]),
        );
        const call = `completion of ${c.argument} from "${value}" with ${JSON.stringify(args)}`;
        const res = await postMcp(
          target.server.mcpUrl,
          request('completion/complete', { ref: c.ref, argument: { name: c.argument, value }, context: { arguments: args } }),
          bearer(caller.token),
        );
        if (res.status >= 500 || UNEXPECTED.test(res.text)) throw new GotThrough(`${call} failed inside: HTTP ${res.status} ${res.text.slice(0, 300)}`);
        const values = res.json?.result?.completion?.values as unknown;
        if (!Array.isArray(values) && typeof res.json?.error?.message !== 'string')
          throw new GotThrough(`${call}: neither suggestions nor a JSON-RPC error: HTTP ${res.status} ${res.text.slice(0, 300)}`);
        return { call, text: res.text, values: Array.isArray(values) ? values.map(String) : undefined };
      };
      const { a, b } = target;
      const mine = (a.ids as unknown as IdValues)[c.kind];
      const theirs = (b.ids as unknown as IdValues)[c.kind] ?? '';
      if (mine === undefined) throw new Error(`A owns no ${c.kind}: give the parties one in tests/attack/target.ts`);
      // The positive control: A, in A's own context, is offered A's own id, from nothing and from its start.
      for (const value of ['', mine.slice(0, 4)]) {
        const own = await complete(a, a, value);
        if (!own.values?.includes(mine))
          throw new Error(`the positive control failed: ${own.call} does not suggest A's own ${mine}: ${own.text.slice(0, 300)}`);
        expectNoneOf(own.text, secretsOf(b), own.call);
      }
      // A naming B's things or typing B's ids is offered none of B's; B naming A's is offered none of A's.
      for (const [caller, context, prefixes, other] of [
        [a, a, [theirs.slice(0, 4), theirs], b],
        [a, b, ['', theirs], b],
        [b, a, ['', mine], a],
      ] as const) {
        for (const value of prefixes) {
          const answer = await complete(caller, context, value);
          expectNoneOf(answer.text, secretsOf(other), answer.call);
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
