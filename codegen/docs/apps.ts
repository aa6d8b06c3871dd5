/** The reference's Apps section (MCP Apps), and what a tool's section says of its app and visibility. */
import path from 'node:path';
import { UI_EXTENSION, UI_MIME_TYPE } from '../../core/apps.ts';
import type { AppModel, Model, ToolModel } from '../load/model.ts';
import type { Block } from './blocks.ts';
import { code, link, toolAnchor, type Inline } from './inline.ts';

export const appAnchor = (name: string) => `app-${name}`;

/** The lines of a tool's list about MCP Apps: the app it opens, who may call it. */
export function toolAppLines(tool: ToolModel): Inline[] {
  const ui = tool.ui;
  if (!ui) return [];
  const lines: Inline[] = [];
  if (ui.app !== undefined && ui.resourceUri !== undefined)
    lines.push(`Opens the app ${link(code(ui.resourceUri), `#${appAnchor(ui.app)}`)}: hosts that support MCP Apps show its result there.`);
  const visibility = [...(ui.visibility ?? [])].sort().join(',');
  if (visibility === 'app')
    lines.push(
      'For the app only (`visibility: [app]`): hosts that support MCP Apps hide it from the model and let the app call it. A hint to hosts, not a lock: the server answers any caller whose token has the scopes.',
    );
  else if (visibility === 'model') lines.push('For the model only (`visibility: [model]`): hosts refuse it to the app.');
  return lines;
}

const domains = (values: readonly string[] | undefined) => (values?.length ? values.map(code).join(', ') : 'none');

function appBlocks(model: Model, app: AppModel): Block[] {
  const project = path.dirname(model.paths.source);
  const openedBy = model.tools.filter((t) => t.ui?.app === app.name).map((t) => link(code(t.name), `#${toolAnchor(t.name)}`));
  const { csp, permissions } = app.ui;
  return [
    { kind: 'heading', level: 3, id: appAnchor(app.name), text: `${code(app.uri)}${app.title ? ` — ${app.title}` : ''}` },
    { kind: 'paragraph', text: app.description },
    {
      kind: 'list',
      items: [
        `Opened by ${openedBy.join(', ') || 'no tool'}.`,
        `Built from ${code(path.relative(project, app.htmlFile).split(path.sep).join('/'))}, its scripts inlined.`,
        csp
          ? `Reaches (CSP): connect ${domains(csp.connectDomains)}; resources ${domains(csp.resourceDomains)}; frames ${domains(csp.frameDomains)}; base URI ${domains(csp.baseUriDomains)}.`
          : 'Reaches nothing outside itself (no CSP origins: the host applies its restrictive default).',
        ...(permissions ? [`Asks for: ${Object.keys(permissions).map(code).join(', ')} (hosts may refuse).`] : []),
        ...(app.ui.domain !== undefined ? [`Sandbox origin: ${code(app.ui.domain)}.`] : []),
        ...(app.ui.prefersBorder !== undefined ? [`Border: ${app.ui.prefersBorder ? 'asks the host for one' : 'asks the host for none'}.`] : []),
      ],
    },
  ];
}

export function appsBlocks(model: Model): Block[] {
  if (!model.apps.length) return [];
  return [
    { kind: 'heading', level: 2, id: 'apps', text: 'Apps' },
    {
      kind: 'paragraph',
      text:
        `MCP Apps (${code(UI_EXTENSION)}): HTML documents that hosts which support the extension render in a sandboxed iframe, for the tools that open them. ` +
        `Each is a resource of MIME type ${code(UI_MIME_TYPE)}, listed by \`resources/list\` and read with \`resources/read\`; its \`_meta.ui\` says what the sandbox must allow.`,
    },
    ...model.apps.flatMap((a) => appBlocks(model, a)),
  ];
}
