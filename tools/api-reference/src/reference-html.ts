/**
 * docs/API.md as a page the gateway serves beside the console (/console/api-reference.html), so that a user of a
 * running gateway can read it and the console's forms can link to a field's row. Renders only the Markdown the
 * reference itself is written in (headings, paragraphs, lists, tables, code blocks, inline code, links to anchors
 * and the `<a id>` anchors of field rows); everything else is escaped. No script: the console's CSP holds.
 */
export function referenceHtml(markdown: string): string {
  const body = blocksOf(markdown.split('\n')).join('\n');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>svc API reference</title><link rel="stylesheet" href="console.css"></head>',
    '<body><header><h1><a href="./">svc console</a> · API reference</h1></header>',
    `<main class="reference">\n${body}\n</main></body></html>`,
    '',
  ].join('\n');
}

function blocksOf(lines: readonly string[]): string[] {
  const html: string[] = [];
  let at = 0;
  const take = (test: (line: string) => boolean): string[] => {
    const taken: string[] = [];
    while (at < lines.length && test(lines[at] ?? '')) taken.push(lines[at++] ?? '');
    return taken;
  };
  while (at < lines.length) {
    const line = lines[at] ?? '';
    const heading = /^(#{1,3}) (.*)$/.exec(line);
    if (line.trim() === '') at += 1;
    else if (line.startsWith('<!--')) {
      take((next) => !next.includes('-->'));
      at += 1;
    } else if (heading) {
      const [, hashes = '#', text = ''] = heading;
      html.push(`<h${hashes.length} id="${slug(text)}">${inline(text)}</h${hashes.length}>`);
      at += 1;
    } else if (line.startsWith('```')) {
      at += 1;
      const code = take((next) => !next.startsWith('```'));
      at += 1;
      html.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
    } else if (line.startsWith('|')) {
      html.push(table(take((next) => next.startsWith('|'))));
    } else if (line.startsWith('- ')) {
      const items = take((next) => next.startsWith('- ') || next.startsWith('  '));
      html.push(`<ul>${listItems(items).map((item) => `<li>${inline(item)}</li>`).join('')}</ul>`);
    } else {
      html.push(`<p>${inline(take((next) => next.trim() !== '' && !/^(#|```|\||- |<!--)/.test(next)).join(' '))}</p>`);
    }
  }
  return html;
}

function listItems(lines: readonly string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    if (line.startsWith('- ')) items.push(line.slice(2));
    else items[items.length - 1] = `${items[items.length - 1] ?? ''} ${line.trim()}`;
  }
  return items;
}

function table(lines: readonly string[]): string {
  const [head = '', , ...rows] = lines;
  const cells = (line: string): string[] =>
    line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim().replace(/\\\|/g, '|'));
  const headCells = cells(head).map((cell) => `<th>${inline(cell)}</th>`).join('');
  const bodyRows = rows.map((row) => `<tr>${cells(row).map((cell) => `<td>${inline(cell)}</td>`).join('')}</tr>`).join('\n');
  return `<table>\n<thead><tr>${headCells}</tr></thead>\n<tbody>\n${bodyRows}\n</tbody>\n</table>`;
}

/** Inline code first (its text is shown as written), then field anchors and links to anchors in the rest. */
function inline(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') && part.endsWith('`') && part.length > 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : prose(part)))
    .join('');
}

function prose(text: string): string {
  return escapeHtml(text)
    .replace(/&lt;a id=&quot;([a-z0-9-]+)&quot;&gt;&lt;\/a&gt;/g, '<a id="$1"></a>')
    .replace(/\[([^\]]+)\]\(#([a-z0-9-]+)\)/g, '<a href="#$2">$1</a>');
}

/** The id GitHub gives a heading, so that `#createwarehousereplication` works on both. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
