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

/** A rendered chart image; a click opens it full size. */
export function ChartImage({ url, title }: { url: string; title?: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="chart-thumb" title={t('enlarge')} onClick={() => setOpen(true)}>
        <img src={url} alt={title ?? t('charts')} data-testid="chart" data-kind="image" loading="lazy" />
      </button>
      {open && (
        <div
          className="lightbox"
          role="dialog"
          aria-label={title ?? t('charts')}
          onClick={() => setOpen(false)}
          onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
        >
          <img src={url} alt={title ?? t('charts')} />
          <button type="button" className="lightbox-close" onClick={() => setOpen(false)}>
            {t('close')}
          </button>
        </div>
      )}
    </>
  );
}

/** The charts of one answer, images and interactive ones side by side. */
export function ChartGallery({ charts }: { charts: ChartItem[] }) {
  if (!charts.length) return null;
  return (
    <div className="chart-gallery">
      {charts.map((c) =>
        c.kind === 'image' ? (
          <ChartImage key={c.url} url={c.url} title={c.title} />
        ) : (
          <InteractiveChart key={c.key} chart={c.params} />
        ),
      )}
    </div>
  );
}
