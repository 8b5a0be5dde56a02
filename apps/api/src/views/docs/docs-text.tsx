import type { ComponentChildren } from 'preact';

/** Anchors are built from component names and operation ids; anything outside [A-Za-z0-9_-] is dropped. */
export const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '')}`;

/** Inline markdown: `code` and **bold**, as elements (the text itself is escaped by the renderer). */
export function inline(text: string): ComponentChildren[] {
  const out: ComponentChildren[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    out.push(m[1] !== undefined ? <code>{m[1]}</code> : <strong>{m[2]}</strong>);
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** The small markdown subset the document's descriptions use: paragraphs, pipe tables, `code`, **bold**. */
export function Markdown({ text }: { text: string | undefined }) {
  if (!text) return null;
  return (
    <>
      {text.split(/\n\s*\n/).map((block) => {
        const lines = block.split('\n').filter((l) => l.trim() !== '');
        if (lines.length >= 2 && lines.every((l) => l.trim().startsWith('|'))) {
          const cells = (l: string) =>
            l
              .trim()
              .replace(/^\||\|$/g, '')
              .split('|')
              .map((c) => c.trim());
          const [head, , ...rows] = lines;
          return (
            <table>
              <thead>
                <tr>
                  {cells(head!).map((c) => (
                    <th>{inline(c)}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr>
                    {cells(r).map((c) => (
                      <td>{inline(c)}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }
        return <p>{inline(lines.join(' '))}</p>;
      })}
    </>
  );
}

const REF = /"#\/components\/(schemas|responses|parameters|headers)\/([A-Za-z0-9_.-]+)"/g;

/**
 * Pretty JSON with component references turned into links to their section. Wrapped, never scrolled sideways: a
 * scrolling region would need its own keyboard stop.
 */
export function Json({ value, refBase }: { value: unknown; refBase: string }) {
  const text = JSON.stringify(value, null, 2) ?? '';
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (let m = REF.exec(text); m; m = REF.exec(text)) {
    parts.push(text.slice(last, m.index + 1));
    parts.push(<a href={`${refBase}#${anchor(m[1]!, m[2]!)}`}>{`#/components/${m[1]}/${m[2]}`}</a>);
    parts.push('"');
    last = REF.lastIndex;
  }
  parts.push(text.slice(last));
  return (
    <pre>
      <code>{parts}</code>
    </pre>
  );
}
