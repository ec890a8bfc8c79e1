import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../src/protocol/index.ts';
import {
  applyEvent,
  chartImages,
  emptyView,
  imageUrls,
  type SessionView,
  startTurn,
  viewFromHistory,
  withChartRefs,
  withoutLiveRun,
} from '../../web/src/session.ts';

const sid = 's1';
const fold = (events: ChatEvent[], answered = new Set<string>(), start: SessionView = emptyView()) =>
  events.reduce((view, event, i) => applyEvent(view, event, answered, 1000 * (i + 1)), start);

const progress = (id: string, status: 'running' | 'completed' | 'error', agent = 'procurement-analyst') =>
  ({
    event: 'progress',
    data: { session_id: sid, id, status, title: `step ${id}`, agent, phase: 'tool' },
  }) as ChatEvent;

describe('session view', () => {
  it('upserts steps by id with their duration and ignores the run-level item', () => {
    const view = fold([
      { event: 'progress', data: { session_id: sid, id: 'run:1', phase: 'run', status: 'running', title: 'working' } },
      progress('a', 'running'),
      progress('b', 'running', 'orchestrator'),
      progress('a', 'completed'),
      progress('b', 'error', 'orchestrator'),
    ]);
    expect(view.id).toBe(sid);
    expect(view.steps.map((s) => [s.id, s.status, s.agent])).toEqual([
      ['a', 'completed', 'procurement-analyst'],
      ['b', 'error', 'orchestrator'],
    ]);
    expect(view.steps[0].endedAt! - view.steps[0].startedAt).toBe(2000);
  });

  it('appends tokens to one answer and collects chart images once (PNG over its SVG twin)', () => {
    const view = fold(
      [
        { event: 'token', data: { session_id: sid, content: '## 结果\n- 图表 1：http://h/charts/a.png' } },
        {
          event: 'token',
          data: { session_id: sid, content: '\n- 图表 1 (svg)：http://h/charts/a.svg\n- 报告：/analysis/r.md' },
        },
        {
          event: 'tool_call',
          data: {
            session_id: sid,
            tool: 'show_chart',
            params: { title: 'T', x_data: ['x'], series: [{ name: 'n', data: [1] }] },
          },
        },
        { event: 'done', data: { session_id: sid, run_id: 'r' } },
      ],
      new Set(),
      startTurn(emptyView(), '比价'),
    );
    expect(view.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(view.messages[1].content).toContain('## 结果');
    expect(view.messages[1].charts.map((c) => c.kind)).toEqual(['image', 'interactive']);
    expect(view.files).toEqual(['/analysis/r.md']);
    expect(view.running).toBe(false);
  });

  it('shows an interrupt once, and never one that was already decided', () => {
    const interrupt = {
      event: 'interrupt',
      id: '7',
      data: { session_id: sid, interrupt_id: 'i1', kind: 'approval', tool: 'order_create', args: {} },
    } as ChatEvent;
    expect(fold([interrupt, interrupt]).pending).toHaveLength(1);
    expect(fold([interrupt], new Set(['i1'])).pending).toHaveLength(0);
    expect(fold([interrupt]).lastEventId).toBe('7');
  });

  it('rebuilds a saved session: messages, steps of each run, pending interrupts, files', () => {
    const view = viewFromHistory(
      sid,
      {
        id: sid,
        owner: 'laoxiao',
        project_id: 'P1',
        title: '下单',
        created_at: '2026-12-04T08:00:00.000Z',
        updated_at: '2026-12-04T08:01:00.000Z',
        origin: 'chat',
        messages: [
          { role: 'user', content: '给博世下单', run_id: 'r1', created_at: '2026-12-04T08:00:00.000Z' },
          { role: 'assistant', content: '', run_id: 'r1', tool_calls: [] },
        ],
        steps: [
          {
            id: 'x',
            run_id: 'r1',
            status: 'running',
            title: '创建采购订单',
            detail: '',
            agent: 'procurement-order',
            phase: 'tool',
          },
        ],
        pending_interrupts: [
          {
            interrupt_id: 'i9',
            value: {
              kind: 'approval',
              tool: 'order_create',
              label: '创建采购订单',
              args: { lines: [] },
              allowed: ['approve', 'reject'],
            },
          },
        ],
        usage: { input_tokens: 0, output_tokens: 0, cost: 0 },
        active_run: 'r1',
        last_event_id: 3,
        files: [{ path: '/analysis/report.md' }],
      },
      new Set(),
    );
    expect(view.title).toBe('下单');
    expect(view.messages[0].content).toBe('给博世下单');
    expect(view.steps.map((s) => s.title)).toEqual(['创建采购订单']);
    expect(view.pending.map((p) => [p.interrupt_id, p.kind])).toEqual([['i9', 'approval']]);
    expect(view.running).toBe(false);
    expect(view.files).toEqual(['/analysis/report.md']);
  });

  it('a running run rebuilt from history keeps its request and leaves the rest to the replay, in order, once', () => {
    const record = { interrupt_id: 'i1', kind: 'approval', subject: '创建采购订单', outcome: 'approved' } as const;
    const saved = viewFromHistory(
      sid,
      {
        id: sid,
        owner: 'laoxiao',
        project_id: 'P1',
        title: '下单',
        created_at: '2026-12-04T08:00:00.000Z',
        updated_at: '2026-12-04T08:01:00.000Z',
        origin: 'chat',
        messages: [
          { role: 'user', content: '你好', run_id: 'r1', created_at: '2026-12-04T08:00:00.000Z' },
          { role: 'assistant', content: '您好', run_id: 'r1', tool_calls: [] },
          { role: 'user', content: '给博世下单', run_id: 'r2', created_at: '2026-12-04T08:00:30.000Z' },
          { role: 'assistant', content: '订单草稿如下', run_id: 'r2', tool_calls: [] },
          { role: 'decision', run_id: 'r2', ...record },
          { role: 'assistant', content: '正在写入', run_id: 'r2', tool_calls: [] },
        ],
        steps: [],
        pending_interrupts: [],
        usage: { input_tokens: 0, output_tokens: 0, cost: 0 },
        active_run: 'r2',
        last_event_id: 9,
        files: [],
      },
      new Set(),
    );
    expect(saved.running).toBe(true);
    expect(saved.runId).toBe('r2');
    const live = withoutLiveRun(saved);
    expect(live.messages.map((m) => m.content)).toEqual(['你好', '您好', '给博世下单']);
    // The replay of the run from its first event brings the answer before the card, the record and the rest back.
    const replayed = fold(
      [
        { event: 'token', id: '1', data: { session_id: sid, content: '订单草稿如下' } },
        { event: 'interrupt', id: '2', data: { session_id: sid, interrupt_id: 'i1', kind: 'approval' } } as ChatEvent,
        { event: 'decision', id: '3', data: { session_id: sid, ...record } } as ChatEvent,
        { event: 'token', id: '4', data: { session_id: sid, content: '正在写入' } },
      ],
      new Set(),
      live,
    );
    expect(replayed.messages.map((m) => m.record?.outcome ?? m.content)).toEqual([
      '你好',
      '您好',
      '给博世下单',
      '订单草稿如下',
      'approved',
      '正在写入',
    ]);
    expect(replayed.pending).toEqual([]);
  });

  it('names a chart image by the alt text its tool returned or its Markdown gave, never by its number alone', () => {
    const alt =
      '火花塞 F7TC 月均价，2026-01 至 2026-04，最高 15.2（2026-02）/ 2026-01 to 2026-04, highest 15.2 (2026-02)';
    const detail = JSON.stringify({
      success: true,
      image_url: 'http://h/charts/a.png',
      alt,
      svg_url: 'http://h/charts/a.svg',
    });
    const view = fold([
      // the analyst's answer names the image by its number first; the tool's answer tells what it shows
      { event: 'token', data: { session_id: sid, content: '![图表 1](http://h/charts/a.png)' } },
      { event: 'progress', data: { ...progress('c1', 'completed').data, detail } } as ChatEvent,
    ]);
    expect(view.messages[0].charts).toEqual([{ kind: 'image', url: 'http://h/charts/a.png', title: alt }]);
    expect(chartImages('![各供应商均价，最高 15](http://h/charts/b.png) ![Chart 2](http://h/charts/c.png)')).toEqual([
      { kind: 'image', url: 'http://h/charts/b.png', title: '各供应商均价，最高 15' },
      { kind: 'image', url: 'http://h/charts/c.png' },
    ]);
  });

  it('finds chart image URLs without trailing punctuation', () => {
    expect(imageUrls('见 http://h/c/1.png）和 (http://h/c/2.svg)')).toEqual(['http://h/c/1.png', 'http://h/c/2.svg']);
  });

  it('shows each chart address of an answer as a reference to its numbered chart, bare or as a Markdown image', () => {
    const charts = [
      { kind: 'image' as const, url: 'http://h/charts/a1.png' },
      { kind: 'interactive' as const, key: 'k', params: { title: 't', x_data: [], series: [] } as never },
      { kind: 'image' as const, url: 'http://h/charts/b2.png?x=1' },
    ];
    const text = [
      '- 图表 1：http://h/charts/a1.png [E1]',
      '![趋势](http://h/charts/b2.png?x=1)',
      'see <http://h/charts/a1.png>; other http://h/charts/zz.png',
    ].join('\n');
    expect(withChartRefs(text, charts, (n) => `〔图 ${n}〕`)).toBe(
      ['- 图表 1：〔图 1〕 [E1]', '〔图 3〕', 'see 〔图 1〕; other http://h/charts/zz.png'].join('\n'),
    );
  });
});
