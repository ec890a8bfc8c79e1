import { pinyin } from 'pinyin-pro';
import { PROVINCES, type Province, REGIONS } from '../lexicon/regions.ts';
import type { Span } from '../quantities.ts';
import { escapeRegExp } from '../text.ts';

/**
 * Reading: a region word (华东, 长三角, 珠三角, a province, "East China", "Jiangsu") is a filter on where suppliers are,
 * never a supplier's name. A supplier is in the region when the location the ERP reports for it (`江苏苏州`, `上海`,
 * `Guangdong Guangzhou`, `广东省广州市`) names one of its provinces, or a city of them the lexicon lists.
 */

export interface Region {
  /** The region's name as the answer says it, in each language. */
  zh: string;
  en: string;
  provinces: Province[];
  /** For a region of cities (珠三角): those cities, in each language. */
  cities?: Array<[zh: string, en: string]>;
}

const provinceOf = (zh: string) => PROVINCES.find((p) => p.zh === zh) as Province;
const CITIES = PROVINCES.flatMap((p) => p.cities);

interface Name {
  region: Region;
  /** How the request may say it: Chinese as a substring, English as whole words in any case. */
  pattern: RegExp;
  /** A province is read only where a place stands (在江苏, 江苏的供应商): a company's name may start with one. */
  placeOnly: boolean;
}

const english = (names: string[]) => new RegExp(`\\b(?:${names.map(escapeRegExp).join('|')})\\b`, 'i');

/** Every name a request may say, longest first (长江三角洲 before 长江, East China before China). */
const NAMES: Name[] = [
  ...REGIONS.flatMap((r) => {
    const region: Region = {
      zh: r.zh[0],
      en: r.en[0],
      provinces: r.provinces.map(provinceOf),
      ...(r.cities ? { cities: r.cities.map((c) => CITIES.find(([zh]) => zh === c) ?? [c, c]) } : {}),
    };
    return [
      ...r.zh.map((zh) => ({ region, pattern: new RegExp(escapeRegExp(zh)), placeOnly: false })),
      { region, pattern: english(r.en), placeOnly: false },
    ];
  }),
  ...PROVINCES.flatMap((p) => {
    const region: Region = { zh: p.zh, en: p.en, provinces: [p] };
    return [
      { region, pattern: new RegExp(`${escapeRegExp(p.zh)}(?:省|市|自治区)?`), placeOnly: true },
      { region, pattern: english([p.en]), placeOnly: true },
    ];
  }),
];

/** Where a province stands as a place: after 在/位于/来自, before 的/地区/供应商, or as "in Jiangsu", "Jiangsu-based". */
const PLACE_BEFORE = /(?:在|位于|来自|地处|\b(?:in|from|near|around)\s+(?:the\s+)?)$/i;
const PLACE_AFTER =
  /^(?:省|市|自治区)?(?:的|地区|一带|那边|境内|本地|区域|供应商|厂家|厂商|供货商|有哪些|有什么|有没有|[?？]|$)|^(?:-based|\s+(?:suppliers?|vendors?|based|area|region|province))\b/i;

/** The region a request names as a place, and where it says it. */
export function readRegion(text: string): ({ region: Region } & Span) | undefined {
  let best: ({ region: Region } & Span) | undefined;
  for (const name of NAMES) {
    for (const m of text.matchAll(new RegExp(name.pattern.source, `${name.pattern.flags}g`))) {
      const start = m.index;
      const end = start + m[0].length;
      if (name.placeOnly && !PLACE_BEFORE.test(text.slice(0, start).trimEnd()) && !PLACE_AFTER.test(text.slice(end)))
        continue;
      // The longest name wins (长江三角洲 over a province inside it); then the first said.
      if (!best || end - start > best.end - best.start || (end - start === best.end - best.start && start < best.start))
        best = { region: name.region, start, end };
    }
  }
  return best;
}

/** Whether a location as the ERP reports it lies in the region: it names one of its provinces or cities. */
export function inRegion(location: string | undefined, region: Region): boolean {
  if (!location) return false;
  const says = ([zh, en]: [string, string]) => location.includes(zh) || english([en]).test(location);
  if (region.cities) return region.cities.some(says);
  return region.provinces.some((p) => says([p.zh, p.en]) || p.cities.some(says));
}

/** The region as an answer names it, with what it covers: 华东（上海、江苏、…）/ East China (Shanghai, Jiangsu, …). */
export function regionLabel(region: Region, en: boolean): string {
  const parts = region.cities ?? region.provinces.map((p) => [p.zh, p.en] as [string, string]);
  if (parts.length === 1 && parts[0][0] === region.zh) return en ? region.en : region.zh;
  return en
    ? `${region.en} (${parts.map(([, e]) => e).join(', ')})`
    : `${region.zh}（${parts.map(([z]) => z).join('、')}）`;
}

/**
 * A location as the ERP reports it, in the answer's language: 江苏苏州 → "Suzhou, Jiangsu" by the lexicon, a place it
 * lacks by its pinyin; a location already in Latin letters as it is.
 */
export function locationIn(location: string, en: boolean): string {
  if (!en || !/[\u3400-\u9fff]/.test(location)) return location;
  const province = PROVINCES.find((p) => location.includes(p.zh));
  let rest = province ? location.replace(new RegExp(`${province.zh}(?:省|市|自治区)?`), '') : location;
  const city = CITIES.find(([zh]) => rest.includes(zh));
  if (city) rest = rest.replace(new RegExp(`${city[0]}市?`), '');
  const spelled = [...rest.matchAll(/[\u3400-\u9fff]+/g)].map((m) =>
    pinyin(m[0].replace(/[市县区]$/, ''), { toneType: 'none', type: 'array' })
      .join('')
      .replace(/^./, (c) => c.toUpperCase()),
  );
  return [...spelled, city?.[1], province?.en].filter(Boolean).join(', ');
}
