import { baseOption, type CommonArgs, fontOf, textWidth } from '../frame.ts';
import { defineChart } from '../module.ts';
import type { TreeData } from './mind-map.ts';

/**
 * Ishikawa layout: the problem (root) is the head on the right, causes (first level) are slanted bones
 * alternating above and below the spine, sub-causes are short horizontal ticks off their bone.
 */
export const fishboneDiagram = defineChart<CommonArgs & { data: TreeData }>({
  type: 'fishbone-diagram',
  build(args, frame) {
    const { theme, palette } = frame;
    const spineY = frame.top + (frame.height - frame.top) / 2;
    const headWidth = Math.min(160, textWidth(args.data.name, 15) + 28);
    const spineEnd = frame.width - headWidth - 24;
    const causes = args.data.children ?? [];
    const columns = Math.max(1, Math.ceil(causes.length / 2));
    const step = (spineEnd - 40) / columns;
    const boneHeight = (frame.height - frame.top) / 2 - 36;
    const slant = boneHeight * 0.45;
    const elements: object[] = [
      {
        type: 'line',
        shape: { x1: 24, y1: spineY, x2: spineEnd, y2: spineY },
        style: { stroke: theme.text, lineWidth: 3 },
      },
      {
        type: 'rect',
        shape: { x: spineEnd, y: spineY - 22, width: headWidth, height: 44, r: 6 },
        style: { fill: palette[0] },
      },
      {
        type: 'text',
        x: spineEnd + headWidth / 2,
        y: spineY,
        style: { text: args.data.name, fill: '#fff', ...fontOf(15, true), align: 'center', verticalAlign: 'middle' },
      },
    ];
    causes.forEach((cause, i) => {
      const up = i % 2 === 0;
      const column = Math.floor(i / 2);
      const x2 = spineEnd - 16 - column * step;
      const x1 = x2 - slant;
      const y1 = spineY + (up ? -boneHeight : boneHeight);
      const color = palette[i % palette.length];
      elements.push(
        { type: 'line', shape: { x1, y1, x2, y2: spineY }, style: { stroke: color, lineWidth: 2 } },
        {
          type: 'text',
          x: x1,
          y: y1 + (up ? -12 : 12),
          style: { text: cause.name, fill: color, ...fontOf(14, true), align: 'center', verticalAlign: 'middle' },
        },
      );
      const subs = cause.children ?? [];
      subs.forEach((sub, j) => {
        const t = (j + 1) / (subs.length + 1);
        const y = y1 + (spineY - y1) * t;
        const x = x1 + (x2 - x1) * t;
        const label = sub.children?.length ? `${sub.name}（${sub.children.map((c) => c.name).join('、')}）` : sub.name;
        elements.push(
          { type: 'line', shape: { x1: x - 36, y1: y, x2: x, y2: y }, style: { stroke: color, lineWidth: 1 } },
          {
            type: 'text',
            x: x - 40,
            y,
            style: { text: label, fill: theme.text, ...fontOf(12), align: 'right', verticalAlign: 'middle' },
          },
        );
      });
    });
    return { ...baseOption(args, frame), graphic: elements };
  },
});
