/** One ready-to-paste client configuration: folded, with a copy button (the MCP dialog, the docs). */
import type { ClientConfig } from 'mcpyard';
import { html, type SafeHtml } from '../../html/html.ts';

export function configBlock(config: ClientConfig): SafeHtml {
  const id = `config-${config.id}`;
  return html`<details>
    <summary>${config.title}</summary>
    <div class="copy-block">
      <div class="copy-block-head">
        <label for="${id}">${config.where}</label>
        <button type="button" class="secondary" data-copy="${id}" hidden>Copy</button>
      </div>
      <textarea id="${id}" readonly rows="${Math.min(14, config.text.split('\n').length + 1)}" spellcheck="false">${config.text}</textarea>
      <div class="copied" id="${id}-status" role="status" aria-live="polite"></div>
    </div>
  </details>`;
}
