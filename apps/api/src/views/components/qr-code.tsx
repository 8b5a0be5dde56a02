import { encode } from 'uqr';

/**
 * A QR code as inline SVG (one path of unit squares), drawn on the server: no image request, no script, and the CSP
 * needs no data: URLs. `label` names it for screen readers, which get the same value as text beside it.
 */
export function QrCode({ value, label }: { value: string; label: string }) {
  const qr = encode(value, { ecc: 'M', border: 2 });
  let d = '';
  qr.data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) d += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return (
    <svg class="qr" viewBox={`0 0 ${qr.size} ${qr.size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <path d={d} fill="#000" />
    </svg>
  );
}
