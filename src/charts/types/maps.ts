import type { EChartsOption } from 'echarts/types/dist/echarts';
import { baseOption, type Frame } from '../frame.ts';
import { featureNamed, type Located, locateAll, mapFor } from '../geo.ts';
import { ChartInputError, defineChart } from '../module.ts';

const MAP_SIZE = { width: 1600, height: 1000 };

interface MapArgs {
  title: string;
  width?: number;
  height?: number;
}

/** A geo component framed around the given coordinates, on the province map when all lie in one province. */
function geoAround(points: Located[], frame: Frame): EChartsOption['geo'] {
  const provinces = new Set(points.map((p) => p.place.province));
  const region = provinces.size === 1 ? mapFor([...provinces][0]) : undefined;
  const lons = points.map((p) => p.place.coord[0]);
  const lats = points.map((p) => p.place.coord[1]);
  const pad = Math.max(
    1.5,
    (Math.max(...lons) - Math.min(...lons)) * 0.25,
    (Math.max(...lats) - Math.min(...lats)) * 0.25,
  );
  return {
    map: region?.map ?? 'china',
    roam: false,
    boundingCoords:
      region || points.length < 2
        ? undefined
        : [
            [Math.min(...lons) - pad, Math.max(...lats) + pad],
            [Math.max(...lons) + pad, Math.min(...lats) - pad],
          ],
    top: frame.top + 16,
    bottom: 24,
    left: 'center',
    itemStyle: { areaColor: frame.theme.neutral, borderColor: frame.theme.axisLine },
    label: { show: true, color: frame.theme.subtleText, fontSize: 11 },
    emphasis: { disabled: true },
  };
}

function geocode(names: string[], notes: string[]): Located[] {
  const { found, missing, notes: approximations } = locateAll(names);
  if (!found.length)
    throw new ChartInputError(
      `无法定位这些地名 / place names not found: ${missing.join('、')}（请使用省、市名称 / use province or city names）`,
    );
  if (missing.length) notes.push(`未找到的地名（未绘制）/ places not found (not drawn): ${missing.join('、')}`);
  notes.push(...approximations);
  return found;
}

const markers = (points: Located[], frame: Frame) => ({
  type: 'scatter' as const,
  coordinateSystem: 'geo' as const,
  data: points.map((p) => ({ name: p.query, value: p.place.coord })),
  symbol: 'pin',
  symbolSize: 30,
  itemStyle: { color: frame.palette[0] },
  label: { show: true, position: 'right' as const, formatter: '{b}', color: frame.theme.text, fontSize: 13 },
});

export const pinMap = defineChart<MapArgs & { data: string[] }>({
  type: 'pin-map',
  defaultSize: MAP_SIZE,
  build(args, frame, notes) {
    const points = geocode(args.data, notes);
    return { ...baseOption(args, frame), geo: geoAround(points, frame), series: [markers(points, frame)] };
  },
});

export const pathMap = defineChart<MapArgs & { data: Array<{ data: string[] }> }>({
  type: 'path-map',
  defaultSize: MAP_SIZE,
  build(args, frame, notes) {
    const routes = args.data.map((route) => geocode(route.data, notes));
    const all = routes.flat();
    return {
      ...baseOption(args, frame),
      geo: geoAround(all, frame),
      series: [
        ...routes.map((route, i) => ({
          type: 'lines' as const,
          coordinateSystem: 'geo' as const,
          polyline: true,
          data: [{ coords: route.map((p) => p.place.coord) }],
          lineStyle: { color: frame.palette[i % frame.palette.length], width: 3, opacity: 0.9 },
          symbol: ['none', 'arrow'],
          symbolSize: 10,
        })),
        markers(all, frame),
      ],
    };
  },
});

interface DistrictArgs extends MapArgs {
  data: {
    name: string;
    style?: { fillColor?: string };
    colors?: string[];
    dataType?: 'number' | 'enum';
    dataLabel?: string;
    dataValue?: string;
    dataValueUnit?: string;
    showAllSubdistricts?: boolean;
    subdistricts?: Array<{ name: string; dataValue?: string; style?: { fillColor?: string } }>;
  };
}

/** China by province or a province by city, coloured by value (continuous) or category (enum). */
export const districtMap = defineChart<DistrictArgs>({
  type: 'district-map',
  defaultSize: MAP_SIZE,
  build(args, frame, notes) {
    const region = mapFor(args.data.name);
    if (!region)
      throw new ChartInputError(
        `不支持的行政区 / unsupported region: ${args.data.name}（支持全国或省级 / use 中国 or a province）`,
      );
    const colors = args.data.colors?.length ? args.data.colors : frame.palette;
    const unknown: string[] = [];
    const items = (args.data.subdistricts ?? []).flatMap((sub) => {
      const feature = featureNamed(region.features, sub.name);
      if (!feature) unknown.push(sub.name);
      return feature ? [{ name: feature, value: sub.dataValue, fill: sub.style?.fillColor }] : [];
    });
    if (unknown.length) notes.push(`${args.data.name}下未找到 / not found in ${args.data.name}: ${unknown.join('、')}`);
    const numeric =
      args.data.dataType === 'number' ||
      (args.data.dataType !== 'enum' && items.every((i) => !Number.isNaN(Number(i.value))));
    const categories = [...new Set(items.map((i) => i.value).filter((v): v is string => v !== undefined))];
    const values = items.map((i) => Number(i.value)).filter((v) => !Number.isNaN(v));
    const label = [args.data.dataLabel, args.data.dataValueUnit && `(${args.data.dataValueUnit})`]
      .filter(Boolean)
      .join(' ');
    const visualMap: EChartsOption['visualMap'] = !items.length
      ? undefined
      : numeric
        ? {
            type: 'continuous',
            min: Math.min(...values),
            max: Math.max(...values),
            text: [label || '', ''],
            inRange: { color: colors.length > 1 ? colors : ['#fff1e6', colors[0]] },
            left: 24,
            bottom: 24,
            calculable: false,
            textStyle: { color: frame.theme.text },
          }
        : {
            // categories are mapped through their index: ECharts' map series only colours numeric values
            type: 'piecewise',
            pieces: categories.map((label, i) => ({ value: i, label, color: colors[i % colors.length] })),
            left: 24,
            bottom: 24,
            textStyle: { color: frame.theme.text },
          };
    return {
      ...baseOption(args, frame),
      visualMap,
      series: [
        {
          type: 'map',
          map: region.map,
          roam: false,
          top: frame.top + 16,
          bottom: 24,
          label: { show: true, color: frame.theme.text, fontSize: 11 },
          itemStyle: { areaColor: args.data.style?.fillColor ?? frame.theme.neutral, borderColor: frame.background },
          emphasis: { disabled: true },
          data: items.map((i) => ({
            name: i.name,
            value: numeric ? Number(i.value) : categories.indexOf(i.value ?? ''),
            itemStyle: i.fill ? { areaColor: i.fill } : undefined,
          })),
        },
      ],
    } as EChartsOption;
  },
});
