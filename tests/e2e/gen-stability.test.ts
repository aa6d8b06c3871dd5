/**
 * Generated output changes only where the YAML did: in a copy of the project under git, adding a
 * tool changes that tool's files and one entry in each listing and registry, never the files of
 * other tools (their validators once renumbered their functions when a tool was added); and a
 * description changes the documents and listings, never a validator.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { copyProject, type ProjectCopy } from '../helpers/project-copy.ts';

const run = promisify(execFile);

// Between campaign_stats and create_campaign in name order, using shared shapes as its neighbours do.
const TOOL = `  clone_campaign:
    title: Clone a campaign
    description: Copies a campaign and its steps into a new draft campaign of the same profile.
    scopes: [mcp:write]
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
    errors: [PROFILE_NOT_FOUND, CAMPAIGN_NOT_FOUND]
    input:
      type: object
      required: [service_profile_id, campaign_id]
      additionalProperties: false
      properties:
        service_profile_id: { $ref: '#/$defs/ProfileId' }
        campaign_id: { $ref: '#/$defs/CampaignId' }
        name: { type: string, minLength: 1, description: The copy's name (default the original's). }
    output: { $ref: '#/$defs/CampaignResult' }
    examples:
      - arguments: { service_profile_id: prf_7d1c2a9k3m4n5p6q, campaign_id: cmp_unknown }
        error: CAMPAIGN_NOT_FOUND

`;

/** Registries and listings: one entry per tool, so adding a tool only adds lines to them. */
const REGISTRIES = [
  'generated/client.gen.ts',
  'generated/handlers.gen.ts',
  'generated/scopes.gen.ts',
  'generated/server.gen.ts',
  'generated/tools-list.gen.ts',
  'tools.contract.json',
];
/** The reference documents the tool, and under each shared shape it uses, lists it among the tools using it. */
const DOCUMENTS = ['docs/reference.html', 'docs/reference.md'];

describe('generated output changes only where tools.yaml did', { timeout: 180_000 }, () => {
  let copy: ProjectCopy;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: copy.dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  const gen = () => run(process.execPath, ['scripts/gen.mjs', 'tools.yaml'], { cwd: copy.dir, maxBuffer: 16 << 20 });
  /** Paths changed since the last commit, new files included. */
  const changed = () =>
    git('status', '--porcelain', '--untracked-files=all')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(3))
      .sort();
  const commit = (message: string) => {
    git('add', '-A');
    git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '--no-verify', '-m', message);
  };
  const editYaml = (edit: (yaml: string) => string) => {
    const file = path.join(copy.dir, 'tools.yaml');
    const before = readFileSync(file, 'utf8');
    const after = edit(before);
    assert.notEqual(after, before, 'the edit applies');
    writeFileSync(file, after);
  };

  before(() => {
    copy = copyProject();
    git('init', '-q');
    commit('the project as it is');
  });

  after(() => copy.cleanup());

  test('adding a tool writes its own files and adds its entries to the listings, and changes no other file', async () => {
    editYaml((yaml) => yaml.replace(/^ {2}start_campaign:\n/m, `${TOOL}$&`));
    await gen();
    const own = [
      'app/tools/clone_campaign.ts',
      'generated/tools/clone_campaign.gen.ts',
      'generated/validators/clone_campaign.gen.d.ts',
      'generated/validators/clone_campaign.gen.js',
    ];
    assert.deepEqual(changed(), [...own, ...REGISTRIES, ...DOCUMENTS, 'tools.yaml'].sort());
    for (const line of git('diff', '--numstat', '--', ...REGISTRIES)
      .trim()
      .split('\n')) {
      const [added, deleted, file] = line.split('\t');
      assert.ok(Number(added) > 0 && deleted === '0', `${file} only gains lines (+${added} -${deleted})`);
    }
    const removed = git('diff', '-U0', '--', 'docs/reference.md')
      .split('\n')
      .filter((l) => l.startsWith('-') && !l.startsWith('---'));
    // The diff's "-" before the Markdown list item's.
    for (const line of removed) assert.match(line, /^-- Used by \[/, 'only the "Used by" lines of the shapes it uses are rewritten');
    commit('clone_campaign');
  });

  test('a new description changes documents and listings, never a validator', async () => {
    editYaml((yaml) => yaml.replace('Copies a campaign and its steps into a new draft', 'Copies a campaign, steps included, into a new draft'));
    await gen();
    const files = changed();
    assert.deepEqual(
      files.filter((f) => f.includes('/validators/')),
      [],
    );
    assert.ok(files.includes('docs/reference.md') && files.includes('generated/tools-list.gen.ts'), files.join(', '));
  });
});
