import { createRequire } from 'node:module';
import { echarts } from './render.ts';

/**
 * China GeoJSON (province outlines, and per province its cities or, for municipalities, districts) from
 * the map files ECharts 4 shipped; every feature carries its centre point (`cp`), which is our gazetteer.
 */
const require = createRequire(import.meta.url);

interface Feature {
  properties: { name: string; cp?: [number, number] };
}
interface GeoJson {
  features: Feature[];
}

const PROVINCE_FILES: Record<string, string> = {
  北京: 'beijing',
  天津: 'tianjin',
  上海: 'shanghai',
  重庆: 'chongqing',
  河北: 'hebei',
  山西: 'shanxi',
  内蒙古: 'neimenggu',
  辽宁: 'liaoning',
  吉林: 'jilin',
  黑龙江: 'heilongjiang',
  江苏: 'jiangsu',
  浙江: 'zhejiang',
  安徽: 'anhui',
  福建: 'fujian',
  江西: 'jiangxi',
  山东: 'shandong',
  河南: 'henan',
  湖北: 'hubei',
  湖南: 'hunan',
  广东: 'guangdong',
  广西: 'guangxi',
  海南: 'hainan',
  四川: 'sichuan',
  贵州: 'guizhou',
  云南: 'yunnan',
  西藏: 'xizang',
  陕西: 'shanxi1',
  甘肃: 'gansu',
  青海: 'qinghai',
  宁夏: 'ningxia',
  新疆: 'xinjiang',
  台湾: 'taiwan',
  香港: 'xianggang',
  澳门: 'aomen',
};

const COUNTRY_NAMES = new Set(['中国', '中华人民共和国', '全国', 'China']);

/** "广西壮族自治区" → "广西", "苏州市" → "苏州", "海淀区" stays "海淀区" (districts keep their suffix). */
export function shortName(name: string): string {
  const trimmed = name.trim().replace(/\s+/g, '');
  return trimmed
    .replace(/(壮族|回族|维吾尔)?自治区$|特别行政区$/, '')
    .replace(/^(.{2,})(省|市)$/, '$1')
    .replace(/^(.{2,})(地区|盟)$/, '$1');
}

export interface Place {
  name: string;
  /** Province (short name) the place lies in; the place itself for provinces. */
  province: string;
  coord: [number, number];
  kind: 'province' | 'city';
}

let gazetteer: { byName: Map<string, Place>; names: string[] } | undefined;

function loadJson(file: string): GeoJson {
  return require(`echarts-v4-maps/map/json/${file}.json`) as GeoJson;
}

/** Registers the China map (once) and indexes provinces and cities by short name. */
function places(): { byName: Map<string, Place>; names: string[] } {
  if (gazetteer) return gazetteer;
  const china = loadJson('china');
  echarts.registerMap('china', china as never);
  const byName = new Map<string, Place>();
  for (const feature of china.features) {
    const name = feature.properties.name;
    byName.set(name, { name, province: name, coord: feature.properties.cp!, kind: 'province' });
  }
  for (const [province, file] of Object.entries(PROVINCE_FILES)) {
    for (const feature of loadJson(`province/${file}`).features) {
      const name = shortName(feature.properties.name);
      if (!byName.has(name) && feature.properties.cp)
        byName.set(name, { name: feature.properties.name, province, coord: feature.properties.cp, kind: 'city' });
    }
  }
  // longest first, so "苏州工业园区" finds 苏州 and not a shorter accidental prefix
  gazetteer = { byName, names: [...byName.keys()].sort((a, b) => b.length - a.length) };
  return gazetteer;
}

export interface Located {
  query: string;
  place: Place;
  /** True when only a containing city/province was recognised (e.g. "杭州西湖" → 杭州). */
  approximate: boolean;
}

/** Finds a Chinese place name in the local gazetteer; undefined when it is not known. */
export function locate(query: string): Located | undefined {
  const { byName, names } = places();
  const exact = byName.get(shortName(query));
  if (exact) return { query, place: exact, approximate: false };
  const compact = query.replace(/\s+/g, '').replace(/^中国/, '');
  const within = names.find((name) => compact.startsWith(name) || compact.startsWith(byName.get(name)!.name));
  return within ? { query, place: byName.get(within)!, approximate: true } : undefined;
}

/** Geocodes a list of names; unknown ones are collected, approximations are described. */
export function locateAll(queries: string[]): { found: Located[]; missing: string[]; notes: string[] } {
  const found: Located[] = [];
  const missing: string[] = [];
  for (const query of queries) {
    const located = locate(query);
    if (located) found.push(located);
    else missing.push(query);
  }
  const notes = found
    .filter((f) => f.approximate)
    .map((f) => `“${f.query}”按${f.place.name}定位 / located at ${f.place.name}`);
  return { found, missing, notes };
}

/** The map to draw a region on: `china`, or a province map (registered on first use). */
export function mapFor(region: string): { map: string; kind: 'country' | 'province'; features: string[] } | undefined {
  const { byName } = places();
  if (COUNTRY_NAMES.has(region.trim()))
    return { map: 'china', kind: 'country', features: loadJson('china').features.map((f) => f.properties.name) };
  const province = byName.get(shortName(region))?.province;
  const file = province && PROVINCE_FILES[province];
  if (!file) return undefined;
  const map = `province:${province}`;
  const json = loadJson(`province/${file}`);
  if (!echarts.getMap(map)) echarts.registerMap(map, json as never);
  return { map, kind: 'province', features: json.features.map((f) => f.properties.name) };
}

/** The feature of `features` a (possibly shortened or suffixed) region name refers to. */
export function featureNamed(features: string[], name: string): string | undefined {
  const wanted = shortName(name);
  return features.find((f) => f === name.trim() || shortName(f) === wanted);
}

export { places as loadGazetteer };
