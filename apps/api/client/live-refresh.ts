// A page whose <body data-refresh="<seconds>"> redraws itself (the wall view): every so often its own address is
// fetched again and its <main> swapped in place, so the screen never flashes blank and keeps its scroll. Any answer
// but 200 (the wall link was deleted: 404) loads the page itself, so the screen shows that answer at once.

export function startLiveRefresh(): void {
  const seconds = Number(document.body.dataset.refresh);
  if (!Number.isFinite(seconds) || seconds <= 0) return;
  const redraw = async () => {
    try {
      const res = await fetch(window.location.href, { headers: { Accept: 'text/html' }, cache: 'no-store' });
      if (res.status !== 200) {
        window.location.reload();
        return;
      }
      const next = new DOMParser().parseFromString(await res.text(), 'text/html');
      const main = next.querySelector('main');
      const current = document.querySelector('main');
      if (main && current) current.replaceWith(document.adoptNode(main));
    } catch {
      // The network is down: keep the last drawing (it shows when it was drawn) and try again at the next tick.
    }
  };
  window.setInterval(() => void redraw(), seconds * 1000);
}
