/**
 * The browser side of the MCP Apps test host (app-host.ts bundles it with esbuild and serves it):
 * a minimal host page built with ext-apps' host side. It puts the app in a sandboxed iframe of
 * another origin (the sandbox server, which sends the app's CSP), connects an AppBridge to it over
 * PostMessageTransport, sends the tool's input and result once the app has initialized, and hands
 * every request of the app for the server (tools/call, resources/read, resources/list) to the
 * Node side, whose MCP client makes it. What the bridge sees is logged on the Node side too.
 */
import { AppBridge, buildAllowAttribute, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

// The page's globals: the project's tsconfig has no DOM library (server code must not use it).
declare const document: any;
declare const window: any;

/** What the Node side puts in the page (a JSON script element, #host-config). */
export interface HostPageConfig {
  appUrl: string;
  title: string;
  /** The app's `_meta.ui` CSP and permissions, as the sandbox applies them. */
  csp?: Record<string, string[]>;
  permissions?: Record<string, object>;
  toolName: string;
  toolInput: Record<string, unknown>;
  toolResult: Record<string, unknown>;
}

/** The bindings the Node side exposes (page.exposeFunction). */
interface NodeSide {
  __appHostServer(method: string, params: unknown): Promise<any>;
  __appHostLog(entry: { direction: string; method: string; params?: unknown }): Promise<void>;
}

const node = window as NodeSide;
const config = JSON.parse(document.getElementById('host-config').textContent) as HostPageConfig;

const iframe = document.createElement('iframe');
iframe.id = 'app';
iframe.title = config.title;
// Scripts, forms, nothing else: no same-origin (the sandbox server is another origin anyway), no popups, no top navigation.
iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
const allow = buildAllowAttribute(config.permissions);
if (allow) iframe.setAttribute('allow', allow);
iframe.src = config.appUrl;
document.getElementById('host').append(iframe);

const bridge = new AppBridge(
  null,
  { name: 'mcpyard-test-host', version: '1.0.0' },
  {
    serverTools: {},
    serverResources: {},
    logging: {},
    openLinks: {},
    updateModelContext: { text: {} },
    message: { text: {} },
    sandbox: { ...(config.csp && { csp: config.csp }), ...(config.permissions && { permissions: config.permissions }) },
  },
  { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web', locale: 'en-GB', timeZone: 'UTC' } },
);
const log = (direction: string, method: string, params?: unknown) => void node.__appHostLog({ direction, method, ...(params !== undefined && { params }) });

// The app's requests for the server: made by the Node side's MCP client (which applies the tool's visibility).
bridge.oncalltool = (params) => node.__appHostServer('tools/call', params);
bridge.onreadresource = (params) => node.__appHostServer('resources/read', params);
bridge.onlistresources = (params) => node.__appHostServer('resources/list', params);
// What a person's host would show or act on: logged, and accepted.
bridge.onmessage = async (params) => (log('app->host', 'ui/message', params), {});
bridge.onopenlink = async (params) => (log('app->host', 'ui/open-link', params), {});
bridge.onupdatemodelcontext = async (params) => (log('app->host', 'ui/update-model-context', params), {});
bridge.onloggingmessage = (params) => log('app->host', 'notifications/message', params);
bridge.onsizechange = ({ height }) => {
  if (height !== undefined) iframe.style.height = `${height}px`;
};
bridge.oninitialized = async () => {
  log('app->host', 'ui/notifications/initialized');
  await bridge.sendToolInput({ arguments: config.toolInput });
  log('host->app', 'ui/notifications/tool-input', { arguments: config.toolInput });
  await bridge.sendToolResult(config.toolResult as Parameters<AppBridge['sendToolResult']>[0]);
  log('host->app', 'ui/notifications/tool-result', config.toolResult);
};

await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
log('host', 'bridge connected');
