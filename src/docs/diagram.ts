// The payment state diagram, drawn from the state machine itself (TRANSITIONS), so it cannot show a
// move the code does not make or miss one it makes. Positions are laid out by hand (a status
// without a position is an error); edges are straight, and a pair of opposite moves is drawn as
// two parallel arrows. Presentation attributes only (no style element or attribute), so the SVG
// can sit inline in a page under a strict Content-Security-Policy. docs/guides/payment-states.svg
// is this output (npm run docs:diagram; a test keeps it current).
import { FINAL_STATUSES, STATUSES, TRANSITIONS, type Status } from '../payments/state-machine.ts';

const W = 236;
const H = 44;
// Three columns: paying (top row), pre-authorisation (middle), refunds (bottom and left). The
// four statuses of completion and cancel form a square, so no two arrows cross there.
const POSITION: Record<Status, [number, number]> = {
  Created: [135, 50],
  Processing: [480, 50],
  Failed: [825, 50],
  Expired: [135, 205],
  WaitingConfirm: [480, 205],
  PaymentCompletionProcessing: [825, 205],
  PartialReturned: [135, 360],
  CancelPaymentProcessing: [480, 360],
  Succeeded: [825, 360],
  Returned: [135, 505],
};

/**
 * A move's label; [label, along, side] puts it that far along a long arrow instead of at its middle,
 * and on the arrow's other side when side is -1.
 */
const LABEL: Partial<Record<`${Status}>${Status}`, string | [string, number, number?]>> = {
  'Created>Processing': 'customer pays',
  'Processing>Created': 'declined, tries left',
  'Created>Expired': 'time ran out',
  'Processing>Failed': 'last try declined',
  'Processing>Succeeded': ['approved', 0.3],
  'Processing>WaitingConfirm': 'approved (preAuth)',
  'WaitingConfirm>PaymentCompletionProcessing': 'complete',
  'PaymentCompletionProcessing>Succeeded': 'captured',
  'WaitingConfirm>CancelPaymentProcessing': 'cancel (void)',
  'Succeeded>CancelPaymentProcessing': 'cancel (refund)',
  'PartialReturned>CancelPaymentProcessing': 'refund more',
  'CancelPaymentProcessing>PartialReturned': 'part returned',
  'CancelPaymentProcessing>Returned': 'all returned',
  'WaitingConfirm>Returned': ['block expired', 0.3, -1],
};

const round = (n: number) => Math.round(n * 10) / 10;

/** Where the line from a box's centre towards (dx, dy) leaves the box. */
function border(cx: number, cy: number, dx: number, dy: number): [number, number] {
  const sx = dx === 0 ? Infinity : W / 2 / Math.abs(dx);
  const sy = dy === 0 ? Infinity : H / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return [cx + dx * s, cy + dy * s];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function stateDiagramSvg(): string {
  const width = 960;
  const height = 580;
  const edges: string[] = [];
  for (const from of STATUSES) {
    const [fx, fy] = POSITION[from];
    for (const to of TRANSITIONS[from]) {
      const [tx, ty] = POSITION[to];
      if (fx === undefined || tx === undefined) throw new Error(`no position for ${from} or ${to}`);
      const len = Math.hypot(tx - fx, ty - fy);
      const [ux, uy] = [(tx - fx) / len, (ty - fy) / len];
      // Opposite moves between the same two statuses: each arrow shifted to its own right.
      const paired = TRANSITIONS[to].includes(from);
      const [ox, oy] = paired ? [-uy * 7, ux * 7] : [0, 0];
      const [x1, y1] = border(fx, fy, ux, uy);
      const [x2, y2] = border(tx, ty, -ux, -uy);
      edges.push(
        `<line x1="${round(x1 + ox)}" y1="${round(y1 + oy)}" x2="${round(x2 + ox)}" y2="${round(y2 + oy)}" stroke="#5b6475" stroke-width="1.5" marker-end="url(#arrow)"/>`,
      );
      const given = LABEL[`${from}>${to}`] ?? (paired ? 'refused' : '');
      const [label, along, side = 1] = typeof given === 'string' ? [given, 0.5] : given;
      if (label) {
        // Beside the middle of the arrow, on the arrow's own side when it is one of a pair.
        const [px, py] = paired ? [-uy * 16, ux * 16] : [-uy * 10 * side, ux * 10 * side];
        const [mx, my] = [x1 + (x2 - x1) * along + ox + px, y1 + (y2 - y1) * along + oy + py];
        const anchor = Math.abs(uy) > 0.7 ? (px > 0 ? 'start' : 'end') : 'middle';
        edges.push(
          `<text x="${round(mx)}" y="${round(my + 4)}" text-anchor="${anchor}" font-size="13" fill="#3b4252" stroke="#ffffff" stroke-width="4" paint-order="stroke">${esc(label)}</text>`,
        );
      }
    }
  }
  const boxes = STATUSES.map((s) => {
    const [x, y] = POSITION[s];
    const final = FINAL_STATUSES.has(s);
    const end = TRANSITIONS[s].length === 0;
    return `<g><rect x="${x - W / 2}" y="${y - H / 2}" width="${W}" height="${H}" rx="8" fill="${final ? '#e8f1ff' : '#ffffff'}" stroke="${final ? '#1f5fbf' : '#8a93a5'}" stroke-width="${end ? 3 : 1.5}"/><text x="${x}" y="${y + 5}" text-anchor="middle" font-size="14" fill="#1d2330">${s}</text></g>`;
  });
  const legendY = height - 18;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif">
<title>Payment states and the moves between them</title>
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#5b6475"/></marker></defs>
<rect width="${width}" height="${height}" fill="#ffffff"/>
${edges.join('\n')}
${boxes.join('\n')}
<g font-size="13" fill="#3b4252"><rect x="20" y="${legendY - 12}" width="22" height="14" rx="3" fill="#e8f1ff" stroke="#1f5fbf" stroke-width="1.5"/><text x="50" y="${legendY}">final status: the merchant gets a callback</text><rect x="400" y="${legendY - 12}" width="22" height="14" rx="3" fill="#ffffff" stroke="#8a93a5" stroke-width="3"/><text x="430" y="${legendY}">thick border: nothing moves it any more</text></g>
</svg>
`;
}
