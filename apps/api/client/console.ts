// The console's enhancement script. Every page works without it (forms post, links navigate); with it:
// - a button with data-confirm asks before its form is sent;
// - a <select data-autosubmit> sends its form when changed (the filter forms keep their Apply button for keyboards
//   and for browsers without JavaScript);
// - a button with data-copy="<element id>" copies that element's text, and elements marked data-js-only appear;
// - a page with <body data-refresh> redraws itself in place (live-refresh.ts: the wall view);
// - the monitors pages: live status (monitors-live.ts), bulk selection (bulk-select.ts) and the response-time chart
//   (monitor-chart.ts, uPlot). Bundled here by esbuild, never from a CDN.
import { enhanceBulkSelection } from './bulk-select.js';
import { drawCharts } from './monitor-chart.js';
import { followStatus } from './monitors-live.js';

import { startLiveRefresh } from './live-refresh.js';

document.documentElement.classList.add('js');
startLiveRefresh();

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target : null;
  const confirmer = target?.closest<HTMLElement>('[data-confirm]');
  if (confirmer && !window.confirm(confirmer.dataset.confirm ?? 'Are you sure?')) {
    event.preventDefault();
    return;
  }
  const copier = target?.closest<HTMLElement>('[data-copy]');
  if (copier?.dataset.copy) {
    const source = document.getElementById(copier.dataset.copy);
    if (source && navigator.clipboard) {
      void navigator.clipboard.writeText(source.textContent ?? '').then(() => {
        const label = copier.textContent;
        copier.textContent = 'Copied';
        window.setTimeout(() => (copier.textContent = label), 1500);
      });
    }
  }
});

document.addEventListener('change', (event) => {
  const select = event.target instanceof HTMLSelectElement ? event.target : null;
  if (select?.hasAttribute('data-autosubmit')) select.form?.requestSubmit();
});

// Monitors pages (the script is deferred: the document is parsed).
followStatus();
enhanceBulkSelection();
drawCharts();
