// Bulk actions on the monitors list: the "select all" box (shown only with JavaScript) ticks every row's box, and the
// bar says how many are selected. The boxes belong to the bulk form (form="bulk") wherever they sit in the table, so
// without JavaScript the form still sends every ticked row to the preview page.

export function enhanceBulkSelection(): void {
  const form = document.getElementById('bulk') as HTMLFormElement | null;
  if (!form) return;
  const all = document.getElementById('select-all') as HTMLInputElement | null;
  const count = document.getElementById('bulk-count');
  const boxes = () => [...document.querySelectorAll<HTMLInputElement>('input[type=checkbox][form=bulk]')];
  const update = () => {
    const ticked = boxes().filter((b) => b.checked).length;
    if (count) count.textContent = ticked === 0 ? 'None selected' : `${ticked} selected`;
    if (all) {
      all.checked = ticked > 0 && ticked === boxes().length;
      all.indeterminate = ticked > 0 && ticked < boxes().length;
    }
  };
  all?.addEventListener('change', () => {
    for (const b of boxes()) b.checked = all.checked;
    update();
  });
  document.addEventListener('change', (event) => {
    if (event.target instanceof HTMLInputElement && event.target.form === form && event.target !== all) update();
  });
  update();
}
