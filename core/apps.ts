/**
 * MCP Apps (SEP-1865, stable 2026-01-26): the names the generator and the runtime share, and the
 * shapes both put on the wire. A tool names its app in `_meta.ui.resourceUri`; the app is a
 * `ui://` resource of MIME type `text/html;profile=mcp-app` whose `_meta.ui` carries what the
 * host's sandbox must allow. A server that has apps advertises the extension in its capabilities.
 */
import type { AppDefinition, ResourceListing, UiToolMeta } from './definition.ts';

/** The extension's identifier, the key of `capabilities.extensions`. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The MIME type of an app's HTML (the only one SEP-1865 defines). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';

/**
 * The flat key SEP-1865 deprecates in favour of `_meta.ui.resourceUri`; hosts built before it
 * still read only this one, so a linked tool carries both (as the SDK's registerAppTool does).
 */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

/** A tool's `_meta`: `ui` and, when it names an app, the deprecated flat key as well. */
export function toolUiMeta(ui: UiToolMeta): Record<string, unknown> {
  return { ui, ...(ui.resourceUri !== undefined && { [LEGACY_RESOURCE_URI_KEY]: ui.resourceUri }) };
}

/** An app's resources/list entry: its `_meta.ui` too, so that a host can review the CSP before it reads the HTML. */
export function appListing(app: AppDefinition): ResourceListing {
  return {
    uri: app.uri,
    name: app.name,
    ...(app.title !== undefined && { title: app.title }),
    description: app.description,
    mimeType: UI_MIME_TYPE,
    ...(Object.keys(app.ui).length && { _meta: { ui: app.ui } }),
  };
}

/** An app's resources/read result: the HTML, with its `_meta.ui` on the content (where hosts look first). */
export function appContents(app: AppDefinition): { contents: object[] } {
  return {
    contents: [{ uri: app.uri, mimeType: UI_MIME_TYPE, text: app.html, ...(Object.keys(app.ui).length && { _meta: { ui: app.ui } }) }],
  };
}
