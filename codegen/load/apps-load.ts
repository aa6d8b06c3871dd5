/**
 * Stage 1 for the apps of tools.yaml (MCP Apps, SEP-1865): each app's `ui://` URI, its HTML
 * document built (app-html.ts), its CSP origins, and each tool's link to an app. Every problem is
 * reported at its place in the file, with what to write instead.
 */
import path from 'node:path';
import type { UiResourceMeta, UiVisibility } from '../../core/definition.ts';
import { isLoopback } from '../../core/loopback.ts';
import { buildAppHtml } from './app-html.ts';
import { hint } from './did-you-mean.ts';
import { byCodePoint, section, strings } from './raw-values.ts';
import type { AppModel, ResourceModel, ToolModel } from './model.ts';

type Path = (string | number)[];
type Report = (p: Path, message: string, key?: boolean) => void;

export interface RawApp {
  uri?: string;
  title?: string;
  description?: string;
  html?: string;
  csp?: Partial<Record<CspKey, string[]>>;
  permissions?: Permission[];
  domain?: string;
  prefers_border?: boolean;
}

/** A tool's `ui:` as written. */
export interface RawToolUi {
  app?: string;
  visibility?: UiVisibility[];
}

type CspKey = 'connect_domains' | 'resource_domains' | 'frame_domains' | 'base_uri_domains';
type Permission = 'camera' | 'microphone' | 'geolocation' | 'clipboard_write';

/** tools.yaml's names -> the wire's. */
const CSP_KEYS: Record<CspKey, keyof NonNullable<UiResourceMeta['csp']>> = {
  connect_domains: 'connectDomains',
  resource_domains: 'resourceDomains',
  frame_domains: 'frameDomains',
  base_uri_domains: 'baseUriDomains',
};
const PERMISSIONS: Record<Permission, keyof NonNullable<UiResourceMeta['permissions']>> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboard_write: 'clipboardWrite',
};

const ORIGIN = /^([a-z]+):\/\/(\*\.)?((?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9*.-]+)(?::\d+)?)$/;

/** Why a CSP entry is not an origin hosts accept, or undefined when it is one. */
export function originProblem(value: string): string | undefined {
  const m = ORIGIN.exec(value);
  const example = 'write scheme://host[:port] with no path, e.g. https://api.example.com (or https://*.example.com for its subdomains)';
  if (!m) return `is not an origin: ${example}`;
  const [, scheme, wildcard = '', host] = m as unknown as [string, string, string | undefined, string];
  if (!['https', 'wss', 'http', 'ws'].includes(scheme))
    return `has the scheme ${scheme}: an app's sandbox allows https and wss origins (http and ws on loopback)`;
  let url: URL;
  try {
    url = new URL(`${scheme}://${host}`);
  } catch {
    return `is not an origin (its host does not parse): ${example}`;
  }
  if (host.includes('*')) return `has a wildcard that is not a leading *. of a domain: ${example}`;
  if (url.host !== host) return `is written differently from the origin it means: write ${scheme}://${wildcard}${url.host}`;
  if ((scheme === 'http' || scheme === 'ws') && !isLoopback(url.hostname))
    return `uses ${scheme}, which hosts' https pages block: use ${scheme === 'http' ? 'https' : 'wss'}://${wildcard}${url.host} (${scheme} only on loopback)`;
  return undefined;
}

/** The `_meta.ui` of an app's resource, from its declaration (the file's schema has checked the shapes). */
function uiMeta(app: RawApp): UiResourceMeta {
  const csp = Object.fromEntries((Object.keys(CSP_KEYS) as CspKey[]).filter((k) => app.csp?.[k] !== undefined).map((k) => [CSP_KEYS[k], strings(app.csp![k])]));
  const permissions = Object.fromEntries(strings(app.permissions).map((p) => [PERMISSIONS[p as Permission] ?? p, {}]));
  return {
    ...(Object.keys(csp).length && { csp }),
    ...(Object.keys(permissions).length && { permissions }),
    ...(typeof app.domain === 'string' && { domain: app.domain }),
    ...(typeof app.prefers_border === 'boolean' && { prefersBorder: app.prefers_border }),
  };
}

/** What the app checks need from the rest of the file. */
export interface AppScope {
  /** The tools.yaml, absolute: apps' files are relative to its folder. */
  file: string;
  resources: readonly ResourceModel[];
  pascalCase(name: string): string;
  atPath: Report;
}

/** The apps' models, sorted by name, each with its document built. */
export function loadApps(raw: unknown, scope: AppScope): AppModel[] {
  const dir = path.dirname(scope.file);
  const display = (absolute: string) => path.relative(dir, absolute).split(path.sep).join('/');
  const uris = new Map<string, string>(scope.resources.flatMap((r) => (r.uri !== undefined ? [[r.uri, `resource ${r.name}`]] : [])));
  const apps: AppModel[] = [];
  for (const [name, app] of section<RawApp>(raw).sort(([a], [b]) => byCodePoint(a, b))) {
    const base = ['ui', name];
    if (typeof app.uri === 'string') {
      if (!/^ui:\/\/\S+$/.test(app.uri))
        scope.atPath(
          [...base, 'uri'],
          `uri of app ${name} must use the ui:// scheme (e.g. ui://<server>/${name.replace(/_/g, '-')}): hosts render only ui:// resources`,
        );
      const other = uris.get(app.uri);
      if (other) scope.atPath([...base, 'uri'], `app ${name} has the same URI as ${other}; give it a URI of its own`);
      uris.set(app.uri, `app ${name}`);
    }
    for (const key of Object.keys(CSP_KEYS) as CspKey[])
      strings(app.csp?.[key]).forEach((origin, i) => {
        const problem = originProblem(origin);
        if (problem) scope.atPath([...base, 'csp', key, i], `csp.${key} of app ${name}: ${origin} ${problem}`);
      });
    const built = typeof app.html === 'string' ? buildAppHtml(path.resolve(dir, app.html), display) : undefined;
    if (Array.isArray(built)) for (const problem of built) scope.atPath([...base, 'html'], `html of app ${name}: ${problem}`);
    const ui = uiMeta(app);
    if (built && !Array.isArray(built))
      for (const src of built.remoteScripts) {
        const origin = /^[a-z]+:\/\/[^/?#]+/i.exec(src.startsWith('//') ? `https:${src}` : src)?.[0];
        const allowed = ui.csp?.resourceDomains ?? [];
        if (!origin || !allowed.some((d) => d === origin || (d.includes('://*.') && origin.endsWith(d.slice(d.indexOf('*.') + 1)))))
          scope.atPath(
            [...base, 'html'],
            `html of app ${name} loads the script ${src}, which hosts block unless csp.resource_domains names ${origin ?? 'its origin'}; add it, or bundle the script (a relative src)`,
          );
      }
    apps.push({
      name,
      typeName: scope.pascalCase(name),
      uri: app.uri ?? '',
      ...(app.title !== undefined && { title: app.title }),
      description: app.description ?? '',
      htmlFile: typeof app.html === 'string' ? path.resolve(dir, app.html) : '',
      html: built && !Array.isArray(built) ? built.html : '',
      inputs: built && !Array.isArray(built) ? built.inputs : [],
      ui,
    });
  }
  return apps;
}

/**
 * Each tool's `ui:` resolved: the app it names must be declared under `ui:` (its URI becomes the
 * tool's resourceUri). Apps no tool links are warned about: no host would ever render them.
 */
export function linkTools(tools: ToolModel[], rawTools: Record<string, { ui?: RawToolUi }>, apps: readonly AppModel[], atPath: Report, warnAt: Report): void {
  const byName = new Map(apps.map((a) => [a.name, a]));
  const linked = new Set<string>();
  for (const tool of tools) {
    const ui = rawTools[tool.name]?.ui;
    if (!ui || typeof ui !== 'object') continue;
    const base = ['tools', tool.name, 'ui'];
    let resourceUri: string | undefined;
    if (typeof ui.app === 'string') {
      const app = byName.get(ui.app) ?? apps.find((a) => a.uri === ui.app);
      if (!app)
        atPath(
          [...base, 'app'],
          `tool ${tool.name} opens app ${ui.app}, which is not declared under ui:${hint(ui.app, byName.keys())}` +
            (apps.length ? '' : '; declare it there (uri, description, html)'),
        );
      else if (app.name !== ui.app) atPath([...base, 'app'], `tool ${tool.name} names app ${app.name} by its URI; write its name: app: ${app.name}`);
      else {
        resourceUri = app.uri;
        linked.add(app.name);
      }
    }
    const visibility = strings(ui.visibility) as UiVisibility[];
    tool.ui = {
      ...(typeof ui.app === 'string' && { app: ui.app }),
      ...(resourceUri !== undefined && { resourceUri }),
      ...(visibility.length && { visibility }),
    };
  }
  for (const app of apps)
    if (!linked.has(app.name))
      warnAt(['ui', app.name], `app ${app.name} is opened by no tool: hosts render an app for a tool whose ui.app names it; link one, or remove the app`);
}
