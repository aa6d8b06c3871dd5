/**
 * generated/apps/<app>.gen.ts: each app of tools.yaml (MCP Apps) as the runtime serves it, its
 * document built (load/app-html.ts: the scripts bundled and inlined) and written as one string,
 * with its `_meta.ui`. A file per app, since a bundled document is large and changes alone.
 */
import path from 'node:path';
import type { AppModel, Model } from '../load/model.ts';
import type { OutputFile } from './output.ts';
import { renderSource } from './ts-source.ts';
import { jsonLiteral, printLiteral, type Literal } from './ts-literal.ts';

/** The constant an app's module exports: notes_board -> notesBoardApp. */
export const appConst = (app: AppModel) => `${app.typeName[0]!.toLowerCase()}${app.typeName.slice(1)}App`;

export function appModulePath(model: Model, app: AppModel): string {
  return path.join(model.paths.generated, 'apps', `${app.name}.gen.ts`);
}

export function emitApps(model: Model): OutputFile[] {
  return model.apps.map((app) => {
    const { name, uri, title, description, ui, html } = app;
    // Laid out as prettier would (ts-literal.ts): the document on one line however long, as prettier leaves a string.
    const literal = jsonLiteral({ name, uri, ...(title !== undefined && { title }), description, ui, html }) as Extract<Literal, { kind: 'object' }>;
    const definition = printLiteral({ ...literal, expanded: true }, '', 0, 1);
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
