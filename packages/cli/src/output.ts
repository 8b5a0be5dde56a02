/** What the CLI writes to: a terminal gets tables and a progress line, a pipe plain lines. */
export interface Io {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** A line on stderr that rewrites itself while a long request runs (terminals only); stop() clears it. */
export function progress(io: Io, label: string): { stop(): void } {
  if (!io.stderr.isTTY) return { stop() {} };
  const started = Date.now();
  const frames = ['|', '/', '-', '\\'];
  let i = 0;
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    io.stderr.write(`\r${frames[i++ % frames.length]} ${label} ${seconds}s`);
  };
  draw();
  const timer = setInterval(draw, 250);
  return {
    stop() {
      clearInterval(timer);
      io.stderr.write('\r\x1b[2K');
    },
  };
}

/** A value in a table cell: short, on one line. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
}
