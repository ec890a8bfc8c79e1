import { computeTextCentres, scaleSolution, venn as vennLayout } from 'venn.js';
import { baseOption, type CommonArgs, fontOf } from '../frame.ts';
import { defineChart } from '../module.ts';

interface VennArgs extends CommonArgs {
  data: Array<{ label?: string; value: number; sets: string[] }>;
}

/** Circle placement by venn.js (area-proportional), drawn as plain shapes. */
export const venn = defineChart<VennArgs>({
  type: 'venn',
  build(args, frame) {
    const areas = args.data.map((d) => ({ sets: d.sets, size: d.value }));
    const padding = 24;
    const circles = scaleSolution(
      vennLayout(areas),
      frame.width - 2 * padding,
      frame.height - frame.top - 2 * padding,
      8,
    );
    const centres = computeTextCentres(circles, areas);
    const names = Object.keys(circles);
    return {
      ...baseOption(args, frame),
      graphic: [
        ...names.map((name, i) => ({
          type: 'circle' as const,
          shape: { cx: circles[name].x + padding, cy: circles[name].y + frame.top + padding, r: circles[name].radius },
          style: {
            fill: frame.palette[i % frame.palette.length],
            opacity: 0.35,
            stroke: frame.palette[i % frame.palette.length],
          },
        })),
        ...args.data.map((d) => {
          const centre = centres[d.sets.join(',')];
          return {
            type: 'text' as const,
            x: centre.x + padding,
            y: centre.y + frame.top + padding,
            style: {
              text: `${d.label ?? d.sets.join('∩')}\n${d.value}`,
              align: 'center' as const,
              verticalAlign: 'middle' as const,
              fill: frame.theme.text,
              ...fontOf(d.sets.length > 1 ? 12 : 14),
            },
          };
        }),
      ],
    };
  },
});
