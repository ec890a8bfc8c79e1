import { type FormEvent, useContext, useState } from 'react';
import {
  CADENCE_REPORT,
  type ChatClient,
  cadenceOf,
  SCHEDULE_KINDS,
  type ScheduleInput,
  type ScheduleKind,
  type ScheduleView,
} from '../../../src/protocol/index.ts';
import { LangContext, useT } from '../i18n.ts';
import { useListing } from '../useListing.ts';
import { Panel } from './Panel.tsx';

const readSchedules = (client: ChatClient) => client.schedules();

/** A time of the schedule, in the schedule's own zone (the one it is listed with), not the browser's. */
const inZone = (iso: string, timeZone: string, lang: string) => {
  try {
    return new Date(iso).toLocaleString(lang === 'en' ? 'en-GB' : 'zh-CN', { timeZone, hour12: false });
  } catch {
    // A zone this browser does not know: the time as UTC, said so.
    return `${new Date(iso).toLocaleString(lang === 'en' ? 'en-GB' : 'zh-CN', { timeZone: 'UTC', hour12: false })} UTC`;
  }
};

const list = (text: string) =>
  text
    .split(/[,，、\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/** The caller's schedules: create, run now, delete. A run lands in the history like a chat. */
export function SchedulesPanel({
  client,
  onClose,
  onRan,
}: {
  client: ChatClient;
  onClose: () => void;
  /** A run now started: the history gains its session. */
  onRan: () => void;
}) {
  const t = useT();
  const lang = useContext(LangContext);
  /** The kind, named by the schedule's cadence where it is a report (a weekly digest is not a 日报). */
  const kindLabel = (s: ScheduleView) =>
    s.kind === 'inventory_digest' || s.kind === 'rfq_digest'
      ? `${t(`kind_${s.kind}_of`)}${lang === 'en' ? ` (${CADENCE_REPORT[cadenceOf(s.cron)].en})` : CADENCE_REPORT[cadenceOf(s.cron)].zh}`
      : t(`kind_${s.kind}`);
  const { items, error, setError, load } = useListing(client, readSchedules);
  const [form, setForm] = useState({
    name: '',
    cron: '0 8 * * 1-5',
    timezone: '',
    kind: 'inventory_digest' as ScheduleKind,
    parts: '',
    categories: '',
    threshold: '10',
    request: '',
  });

  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const create = (e: FormEvent) => {
    e.preventDefault();
    const common = {
      name: form.name,
      cron: form.cron,
      ...(form.timezone.trim() ? { timezone: form.timezone.trim() } : {}),
    };
    const input: ScheduleInput =
      form.kind === 'price_watch'
        ? {
            ...common,
            kind: 'price_watch',
            parts: list(form.parts),
            categories: list(form.categories),
            threshold_pct: Number(form.threshold),
          }
        : form.kind === 'custom'
          ? { ...common, kind: 'custom', request: form.request }
          : { ...common, kind: form.kind === 'rfq_digest' ? 'rfq_digest' : 'inventory_digest' };
    void act(() => client.createSchedule(input));
  };
  const field = (key: keyof typeof form) => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => setForm((f) => ({ ...f, [key]: e.target.value })),
  });

  return (
    <Panel title={t('schedulesTitle')} testId="schedules-panel" error={error} onClose={onClose}>
      <form className="schedule-form" onSubmit={create}>
        <label>
          {t('scheduleName')}
          <input required maxLength={100} data-testid="schedule-name" {...field('name')} />
        </label>
        <label>
          {t('scheduleCron')}
          <input required maxLength={100} data-testid="schedule-cron" {...field('cron')} />
        </label>
        <label>
          {t('scheduleTimezone')}
          <input maxLength={64} placeholder="Asia/Shanghai" {...field('timezone')} />
        </label>
        <label>
          {t('scheduleKind')}
          <select data-testid="schedule-kind" {...field('kind')}>
            {SCHEDULE_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`kind_${k}`)}
              </option>
            ))}
          </select>
        </label>
        {form.kind === 'price_watch' && (
          <>
            <label>
              {t('scheduleParts')}
              <input {...field('parts')} />
            </label>
            <label>
              {t('scheduleCategories')}
              <input {...field('categories')} />
            </label>
            <label>
              {t('scheduleThreshold')}
              <input type="number" min="0.1" step="0.1" {...field('threshold')} />
            </label>
          </>
        )}
        {form.kind === 'custom' && (
          <label>
            {t('scheduleRequest')}
            <input required maxLength={8000} data-testid="schedule-request" {...field('request')} />
          </label>
        )}
        <button type="submit" className="btn btn-primary btn-small" data-testid="schedule-create">
          {t('scheduleCreate')}
        </button>
      </form>
      {items?.length === 0 && <p className="muted">{t('scheduleNone')}</p>}
      <ul className="schedule-list">
        {items?.map((s) => (
          <li key={s.id} className="schedule-row" data-testid="schedule-item">
            <span className="schedule-name">
              <strong>{s.name}</strong> <code>{s.cron}</code> {s.timezone} ·{' '}
              <span data-testid="schedule-kind-label">{kindLabel(s)}</span>
              <br />
              <span className="muted">
                <span data-testid="schedule-next">
                  {t('scheduleNext')}: {inZone(s.next_run_at, s.timezone, lang)} ({s.timezone})
                </span>
                {s.last_run_at && ` · ${t('scheduleLast')}: ${inZone(s.last_run_at, s.timezone, lang)}`}
              </span>
              {s.last_error && <span className="badge badge-warn">{s.last_error}</span>}
            </span>
            <button
              type="button"
              className="btn btn-small"
              data-testid="schedule-run"
              onClick={() =>
                void act(async () => {
                  await client.runSchedule(s.id);
                  onRan();
                })
              }
            >
              {t('scheduleRunNow')}
            </button>
            <button
              type="button"
              className="link"
              data-testid="schedule-delete"
              onClick={() => window.confirm(t('confirmDelete')) && void act(() => client.deleteSchedule(s.id))}
            >
              {t('delete')}
            </button>
          </li>
        ))}
      </ul>
    </Panel>
  );
}
