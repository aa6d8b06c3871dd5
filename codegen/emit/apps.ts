/**
 * generated/apps/<app>.gen.ts: each app of tools.yaml (MCP Apps) as the runtime serves it, its
 * document built (load/app-html.ts: the scripts bundled and inlined) and written as one string,
 * with its `_meta.ui`. A file per app, since a bundled document is large and changes alone.
 */
import path from 'node:path';
import type { AppModel, Model } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import { literal, renderSource } from './ts-source.ts';

/** The constant an app's module exports: notes_board -> notesBoardApp. */
export const appConst = (app: AppModel) => `${app.typeName[0]!.toLowerCase()}${app.typeName.slice(1)}App`;

export function appModulePath(model: Model, app: AppModel): string {
  return path.join(model.paths.generated, 'apps', `${app.name}.gen.ts`);
}

export function emitApps(model: Model): OutputFile[] {
  return model.apps.map((app) => {
    const definition = [
      '{',
      `  name: ${literal(app.name)},`,
      `  uri: ${literal(app.uri)},`,
      ...(app.title !== undefined ? [`  title: ${literal(app.title)},`] : []),
      `  description: ${literal(app.description)},`,
      `  ui: ${literal(app.ui).replace(/\n/g, '\n  ')},`,
      // One line however long: the document is machine-made, and JSON escapes are TypeScript's too.
      `  html: ${JSON.stringify(app.html)},`,
      '}',
    ].join('\n');
    const content = renderSource([
      { kind: 'import', isTypeOnly: true, moduleSpecifier: model.paths.runtimeImport, namedImports: ['AppDefinition'] },
      {
        kind: 'const',
        isExported: true,
        docs: [`App ${app.name} (${app.uri}), built from ${path.relative(path.dirname(model.paths.source), app.htmlFile).split(path.sep).join('/')}.`],
        declarations: [{ name: appConst(app), type: 'AppDefinition', initializer: definition }],
      },
    ]);
    return { path: appModulePath(model, app), content, formatted: true };
  });
}
