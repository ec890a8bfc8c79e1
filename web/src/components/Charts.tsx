import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef, useState } from 'react';
import type { ShowChartParams } from '../../../src/protocol/index.ts';
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

function optionOf(chart: ShowChartParams): echarts.EChartsCoreOption {
  const title = { text: chart.title, left: 'center', textStyle: { fontSize: 14, fontWeight: 600 } };
  const tooltip = {
    trigger: chart.chart_type === 'pie' ? 'item' : 'axis',
    valueFormatter: (v: unknown) => `${v ?? '—'}${chart.unit ?? ''}`,
  };
  if (chart.chart_type === 'pie') {
    const series = chart.series[0];
    return {
      color: PALETTE,
      title,
      tooltip,
      legend: { bottom: 0, type: 'scroll' },
      series: [
        {
          type: 'pie',
          name: series?.name,
          radius: ['35%', '65%'],
          data: chart.x_data.map((name, i) => ({ name: String(name), value: series?.data[i] ?? null })),
        },
      ],
    };
  }
  return {
    color: PALETTE,
    title,
    tooltip,
    legend: { bottom: 0, type: 'scroll' },
    grid: { left: 48, right: 24, top: 48, bottom: 56, containLabel: true },
    xAxis: { type: 'category', data: chart.x_data.map(String), axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', name: chart.unit },
    series: chart.series.map((s) => ({
      type: chart.chart_type === 'line' ? 'line' : 'bar',
      name: s.name,
      data: s.data,
      smooth: chart.chart_type === 'line',
      barMaxWidth: 36,
    })),
  };
}

/** An interactive chart from a `show_chart` event (`x_data` + `series`). */
export function InteractiveChart({ chart }: { chart: ShowChartParams }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const instance = echarts.init(ref.current, undefined, { renderer: 'canvas' });
    instance.setOption(optionOf(chart));
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(ref.current);
    return () => {
      observer.disconnect();
      instance.dispose();
    };
  }, [chart]);
  return <div className="chart-interactive" data-testid="chart" data-kind="interactive" ref={ref} />;
}

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
          <figcaption>{chartLabel(t, i + 1)}</figcaption>
        </figure>
      ))}
    </div>
  );
}

/** How an answer and the gallery name the n-th chart of an answer. */
export const chartLabel = (t: (key: string) => string, n: number) => t('chartN').replace('{n}', String(n));
