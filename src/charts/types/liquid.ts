import { baseOption, type CommonArgs, fontOf } from '../frame.ts';
import { defineChart } from '../module.ts';

interface LiquidArgs extends Omit<CommonArgs, 'style'> {
  percent: number;
  shape?: 'circle' | 'rect' | 'pin' | 'triangle';
  style?: { backgroundColor?: string; color?: string };
}

type Point = [number, number];

/** The container outline as a polygon centred on (cx, cy) with radius r. */
function outline(shape: LiquidArgs['shape'], cx: number, cy: number, r: number): Point[] {
  const circle = (from: number, to: number, steps: number, radius: number, oy: number): Point[] =>
    Array.from({ length: steps + 1 }, (_, i) => {
      const a = from + ((to - from) * i) / steps;
      return [cx + radius * Math.cos(a), oy + radius * Math.sin(a)];
    });
  switch (shape) {
    case 'rect':
      return [
        [cx - r, cy - r],
        [cx + r, cy - r],
        [cx + r, cy + r],
        [cx - r, cy + r],
      ];
    case 'triangle':
      return [
        [cx, cy - r],
        [cx + r, cy + r * 0.8],
        [cx - r, cy + r * 0.8],
      ];
    case 'pin':
      // a head circle above a point; its sides run tangent from the tip
      return [...circle(Math.PI * 0.8, Math.PI * 2.2, 48, r * 0.7, cy - r * 0.3), [cx, cy + r]];
    default:
      return circle(0, Math.PI * 2, 72, r, cy);
  }
}

/** Top and bottom of the outline along the vertical line at x (every supported outline is vertically convex). */
function span(polygon: Point[], x: number): [number, number] | undefined {
  const ys: number[] = [];
  polygon.forEach((a, i) => {
    const b = polygon[(i + 1) % polygon.length];
    if ((a[0] <= x && x <= b[0]) || (b[0] <= x && x <= a[0])) {
      ys.push(a[0] === b[0] ? Math.min(a[1], b[1]) : a[1] + ((x - a[0]) / (b[0] - a[0])) * (b[1] - a[1]));
      if (a[0] === b[0]) ys.push(Math.max(a[1], b[1]));
    }
  });
  return ys.length ? [Math.min(...ys), Math.max(...ys)] : undefined;
}

/** A container filled to `percent` with a gentle wave surface, and the percentage in the middle. */
export const liquid = defineChart<LiquidArgs>({
  type: 'liquid',
  build(args, frame) {
    const color = args.style?.color ?? frame.palette[0];
    const r = Math.min(frame.width, frame.height - frame.top) * 0.4;
    const cx = frame.width / 2;
    const cy = frame.top + (frame.height - frame.top) / 2;
    const polygon = outline(args.shape, cx, cy, r);
    const xs = polygon.map((p) => p[0]);
    const ys = polygon.map((p) => p[1]);
    const top = Math.min(...ys);
    const bottom = Math.max(...ys);
    const level = bottom - (bottom - top) * Math.max(0, Math.min(1, args.percent));
    const surface: Point[] = [];
    const floor: Point[] = [];
    for (let x = Math.min(...xs); x <= Math.max(...xs); x += 2) {
      const range = span(polygon, x);
      if (!range) continue;
      const wave = level + r * 0.04 * Math.sin((x - cx) / (r * 0.25));
      const y = Math.max(wave, range[0]);
      if (y >= range[1]) continue;
      surface.push([x, y]);
      floor.push([x, range[1]]);
    }
    return {
      ...baseOption({ ...args, style: { backgroundColor: args.style?.backgroundColor } }, frame),
      graphic: [
        { type: 'polygon', shape: { points: polygon }, style: { fill: `${color}14`, stroke: color, lineWidth: 3 } },
        { type: 'polygon', shape: { points: [...surface, ...floor.reverse()] }, style: { fill: color, opacity: 0.85 } },
        {
          type: 'text',
          x: cx,
          y: cy,
          style: {
            text: `${(args.percent * 100).toFixed(1).replace(/\.0$/, '')}%`,
            ...fontOf(r * 0.32, true),
            fill: frame.theme.text,
            stroke: frame.background,
            lineWidth: 3,
            align: 'center',
            verticalAlign: 'middle',
          },
        },
      ],
    };
  },
});
