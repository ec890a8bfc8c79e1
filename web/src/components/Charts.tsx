import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef, useState } from 'react';
import {
  categoryLayout,
  describeChart,
  FEW_BARS,
  formatValue,
  type ShowChartParams,
} from '../../../src/protocol/index.ts';
import { useT } from '../i18n.ts';
import type { ChartItem } from '../session.ts';

echarts.use([
  BarChart,
  LineChart,
  PieChart,
  GridComponent,
  LegendComponent,
  TitleComponent,
  TooltipComponent,
  CanvasRenderer,
]);

const PALETTE = ['#2563eb', '#0d9488', '#f59e0b', '#dc2626', '#7c3aed', '#64748b', '#db2777', '#65a30d'];
const GRID = { left: 48, right: 24, top: 48, bottom: 56 };
/** Room the value axis' labels take beside the plot, as the chart renderer allows for them. */
const VALUE_AXIS_LABELS = 70;

/**
 * The chart's option at its current size, in the UI's font. Category labels are laid out by the renderer's rule
 * (`categoryLayout`): every one shown, wrapped or turned when its slot is narrow; a label cut short keeps its full
 * text in the axis tooltip. Widths are estimated, not measured (CJK glyphs square, Latin about half), as the
 * renderer does.
 */
function optionOf(
  chart: ShowChartParams,
  view: { width: number; height: number; fontFamily: string },
): echarts.EChartsCoreOption {
  const base = {
    color: PALETTE,
    textStyle: { fontFamily: view.fontFamily },
    title: { text: chart.title, left: 'center', textStyle: { fontSize: 14, fontWeight: 600 } },
    tooltip: {
      trigger: chart.chart_type === 'pie' ? 'item' : 'axis',
      valueFormatter: (v: unknown) => `${formatValue(v) || '—'}${chart.unit ?? ''}`,
    },
    legend: { bottom: 0, type: 'scroll' },
  };
  if (chart.chart_type === 'pie') {
    const series = chart.series[0];
    return {
      ...base,
      series: [
        {
          type: 'pie',
          name: series?.name,
          radius: ['35%', '65%'],
          // a label per slice, moved apart rather than dropped when neighbours would collide
          label: { show: true },
          avoidLabelOverlap: true,
          data: chart.x_data.map((name, i) => ({ name: String(name), value: series?.data[i] ?? null })),
        },
      ],
    };
  }
  const categories = chart.x_data.map(String);
  const { axisLabel, overhang } = categoryLayout(
    categories,
    { width: view.width, height: view.height, top: GRID.top, sides: GRID.left + GRID.right + VALUE_AXIS_LABELS },
    'x',
  );
  // Few points carry their values, as the renderer's bars do.
  const points = chart.series.reduce((sum, s) => sum + s.data.filter((v) => v !== null).length, 0);
  const label =
    points <= FEW_BARS
      ? { show: true, position: 'top', fontSize: 11, formatter: (p: { value: unknown }) => formatValue(p.value) }
      : { show: false };
  const line = chart.chart_type === 'line';
  // Lines' values above the highest point of each category and below the others, so that two lines running close
  // together do not print their values over each other.
  const highest = chart.x_data.map((_, i) => Math.max(...chart.series.map((s) => s.data[i] ?? -Infinity)));
  const placed = (data: Array<number | null>) =>
    data.map((v, i) => (v === null ? v : { value: v, label: { position: v === highest[i] ? 'top' : 'bottom' } }));
  return {
    ...base,
    grid: { ...GRID, left: Math.max(GRID.left, overhang), containLabel: true },
    xAxis: { type: 'category', data: categories, axisLabel },
    yAxis: { type: 'value', name: chart.unit },
    series: chart.series.map((s) => ({
      type: line ? 'line' : 'bar',
      name: s.name,
      data: line && label.show ? placed(s.data) : s.data,
      smooth: line,
      barMaxWidth: 36,
      label,
    })),
  };
}

/** An interactive chart from a `show_chart` event (`x_data` + `series`). */
export function InteractiveChart({ chart }: { chart: ShowChartParams }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    let gone = false;
    let stop = () => {};
    // Drawn in the UI's fonts once they have loaded (the shipped Chinese font on a system without one): ECharts
    // keeps each text's measured width, which a fallback font drawn meanwhile would leave wrong.
    document.fonts.ready.then(() => {
      if (gone) return;
      const instance = echarts.init(el, undefined, { renderer: 'canvas' });
      // How the category labels fit depends on the chart's width: laid out again at each size. The axis and grid
      // are replaced rather than merged, so a turn or wrap from a narrower size does not stay behind.
      const draw = () => {
        instance.resize();
        const view = { width: el.clientWidth, height: el.clientHeight, fontFamily: getComputedStyle(el).fontFamily };
        instance.setOption(optionOf(chart, view), { replaceMerge: ['xAxis', 'grid'] });
      };
      draw();
      const observer = new ResizeObserver(draw);
      observer.observe(el);
      stop = () => {
        observer.disconnect();
        instance.dispose();
      };
    });
    return () => {
      gone = true;
      stop();
    };
  }, [chart]);
  // The canvas says nothing to a screen reader: the chart is an image named by what it shows and its main figure.
  return (
    <div
      className="chart-interactive"
      data-testid="chart"
      data-kind="interactive"
      role="img"
      aria-label={describeInteractive(chart)}
      ref={ref}
    />
  );
}

/** What an interactive chart shows and its main figure (`describeChart`), Chinese first with English. */
const describeInteractive = (chart: ShowChartParams) =>
  describeChart({
    title: chart.title,
    kind: chart.chart_type ?? 'bar',
    categories: chart.x_data.map(String),
    series: chart.series,
    unit: chart.unit,
  });

/**
 * A rendered chart image; a click opens it full size. The enlarged view takes the focus (its close button), closes
 * on Escape wherever the focus is, and gives the focus back to the chart that opened it.
 */
export function ChartImage({ url, title }: { url: string; title?: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const thumb = useRef<HTMLButtonElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    thumb.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    closeButton.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      setOpen(false);
      thumb.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <>
      <button type="button" className="chart-thumb" title={t('enlarge')} ref={thumb} onClick={() => setOpen(true)}>
        <img src={url} alt={title ?? t('charts')} data-testid="chart" data-kind="image" loading="lazy" />
      </button>
      {open && (
        // a click anywhere on the backdrop closes, as the close button and Escape do
        // biome-ignore lint/a11y/useKeyWithClickEvents: Escape is handled for the whole document while open
        <div className="lightbox" role="dialog" aria-modal="true" aria-label={title ?? t('charts')} onClick={close}>
          <img src={url} alt={title ?? t('charts')} />
          <button type="button" className="lightbox-close" ref={closeButton} onClick={close}>
            {t('close')}
          </button>
        </div>
      )}
    </>
  );
}

/** The charts of one answer, images and interactive ones side by side. */
export function ChartGallery({ charts }: { charts: ChartItem[] }) {
  const t = useT();
  if (!charts.length) return null;
  return (
    <div className="chart-gallery">
      {charts.map((c, i) => (
        // Numbered as the answer's text refers to them (`withChartRefs`).
        <figure key={c.kind === 'image' ? c.url : c.key} className="chart-figure">
          {c.kind === 'image' ? <ChartImage url={c.url} title={c.title} /> : <InteractiveChart chart={c.params} />}
          <figcaption>
            {chartLabel(t, i + 1)}
            {captionOf(c) && `：${captionOf(c)}`}
          </figcaption>
        </figure>
      ))}
    </div>
  );
}

/** What a chart shows, as its caption says: an image's alt text when the answer gave one. */
const captionOf = (chart: ChartItem) => (chart.kind === 'image' ? chart.title : describeInteractive(chart.params));

/** How an answer and the gallery name the n-th chart of an answer. */
export const chartLabel = (t: (key: string) => string, n: number) => t('chartN').replace('{n}', String(n));
