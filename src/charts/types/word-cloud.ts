import { baseOption, type CommonArgs, fontOf, textWidth } from '../frame.ts';
import { defineChart } from '../module.ts';

interface WordCloudArgs extends CommonArgs {
  data: Array<{ text: string; value: number }>;
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Largest words first, each placed at the first free spot on an Archimedean spiral from the centre (deterministic). */
export const wordCloud = defineChart<WordCloudArgs>({
  type: 'word-cloud',
  build(args, frame) {
    const words = [...args.data].sort((a, b) => b.value - a.value);
    const max = words[0]?.value ?? 1;
    const min = words[words.length - 1]?.value ?? 0;
    const scale = Math.min(frame.width, frame.height) / 400;
    const placed: Array<Box & { text: string; size: number; color: string }> = [];
    const cx = frame.width / 2;
    const cy = (frame.height + frame.top) / 2;
    words.forEach((word, i) => {
      const size = Math.round((14 + 34 * Math.sqrt((word.value - min) / (max - min || 1))) * scale);
      const w = textWidth(word.text, size) + 4;
      const h = size * 1.15;
      for (let t = 0; t < 2000; t++) {
        const angle = t * 0.35;
        const radius = 2.2 * angle;
        const box = { x: cx + radius * Math.cos(angle) * 1.4 - w / 2, y: cy + radius * Math.sin(angle) - h / 2, w, h };
        const inside =
          box.x >= 4 && box.y >= frame.top && box.x + w <= frame.width - 4 && box.y + h <= frame.height - 4;
        if (inside && !placed.some((p) => overlaps(p, box))) {
          placed.push({ ...box, text: word.text, size, color: frame.palette[i % frame.palette.length] });
          break;
        }
      }
    });
    return {
      ...baseOption(args, frame),
      graphic: placed.map((p) => ({
        type: 'text' as const,
        x: p.x + p.w / 2,
        y: p.y + p.h / 2,
        style: {
          text: p.text,
          fill: p.color,
          ...fontOf(p.size, p.size > 30),
          align: 'center' as const,
          verticalAlign: 'middle' as const,
        },
      })),
    };
  },
});
