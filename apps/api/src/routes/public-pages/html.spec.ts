import { describe, expect, it } from '@jest/globals';
import { escapeHtml, html, raw } from './html.js';

describe('html', () => {
  it('escapes every interpolation', () => {
    const evil = `<script>alert("x")</script>&'`;
    expect(html`<p title="${evil}">${evil}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
    );
  });

  it('nests safe fragments and arrays without double escaping, and drops null, undefined and false', () => {
    const items = ['a<b', 'c&d'].map((t) => html`<li>${t}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${0}`.value).toBe(
      '<ul><li>a&lt;b</li><li>c&amp;d</li></ul>0',
    );
    expect(html`${raw('<br>')}`.value).toBe('<br>');
  });

  it('escapes the five special characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
