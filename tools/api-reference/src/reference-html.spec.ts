import { renderApiReference } from '@svc/api-model';
import { referenceHtml, slug } from './reference-html';

describe('the API reference page', () => {
  const page = referenceHtml(renderApiReference());

  it('gives every heading the id GitHub gives it and keeps the field anchors', () => {
    expect(page).toContain('<h2 id="createwarehousereplication">CreateWarehouseReplication</h2>');
    expect(page).toContain('<h3 id="createwarehousereplication-request">');
    expect(page).toContain('<a id="createwarehousereplication-warehouse-bucketname"></a><code>Warehouse/BucketName</code>');
    expect(slug('Reading values')).toBe('reading-values');
  });

  it('links only to anchors it has', () => {
    const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    const targets = [...page.matchAll(/href="#([^"]+)"/g)].map((match) => match[1]);
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.filter((target) => !ids.has(target))).toEqual([]);
  });

  it('escapes everything but the Markdown it renders: no script, no markup from the text', () => {
    const hostile = referenceHtml('# T\n\nA <script>alert(1)</script> and `<b>` and <a id="x" onclick="y"></a>\n\n| a | b |\n|---|---|\n| <img src=x> | c \\| d |\n');
    expect(hostile).not.toMatch(/<script|<img|<b>|onclick="/);
    expect(hostile).toContain('<td>c | d</td>');
    expect(hostile).toContain('<code>&lt;b&gt;</code>');
    expect(page).not.toContain('<script');
  });

  it('shows the examples as code, escaped', () => {
    expect(page).toContain('&lt;CreateWarehouseReplicationRequest&gt;');
  });
});
