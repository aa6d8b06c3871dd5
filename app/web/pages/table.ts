/** A read-only table of rows, or a line saying there are none: the shape of every list the pages show. */
import { html, type HtmlValue, type SafeHtml } from '../../html/html.ts';

/** A column: its header, and the cell of one row. */
export type Column<Row> = readonly [header: string, cell: (row: Row) => HtmlValue];

/**
 * `stack`: on a phone, each row reads as a block of "Header: value" lines instead of a table that
 * scrolls sideways (for tables of many columns). A column headed '' (a row's action, whose link says
 * what it does) is shown without a label.
 */
export function dataTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], empty: string, options: { stack?: boolean } = {}): SafeHtml {
  if (!rows.length) return html`<p class="empty">${empty}</p>`;
  const cell = (header: string, value: HtmlValue) => (options.stack && header ? html`<td data-label="${header}">${value}</td>` : html`<td>${value}</td>`);
  return html`<div class="table-wrap"><table${options.stack ? html` class="stack-table"` : ''}>
<thead><tr>${columns.map(([header]) => html`<th scope="col">${header}</th>`)}</tr></thead>
<tbody>${rows.map(
    (row) =>
      html`<tr>
        ${columns.map(([header, value]) => cell(header, value(row)))}
      </tr>`,
  )}</tbody>
</table></div>`;
}

/** A status shown as a coloured badge (the status name is also its CSS class), labelled by its name unless told. */
export const badge = (status: string, label: string = status): SafeHtml => html`<span class="badge ${status}">${label}</span>`;
