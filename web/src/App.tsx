import { type ReactNode, useCallback, useEffect, useMemo, useState } from 'react';
import {
  type AgentLabel,
  type AgentSuggestions,
  ApiError,
  awardRequest,
  ChatClient,
  type Me,
  type SupplierName,
} from '../../src/protocol/index.ts';
import { ApprovalQueue } from './components/ApprovalQueue.tsx';
import { ConnectionBanner } from './components/ConnectionBanner.tsx';
import { Conversation } from './components/Conversation.tsx';
import { OrderPanel } from './components/OrderPanel.tsx';
import { ReportPanel } from './components/ReportPanel.tsx';
import { type RfqRoute, RfqsView, rfqRoute } from './components/RfqsView.tsx';
import { SchedulesPanel } from './components/SchedulesPanel.tsx';
import { Sidebar } from './components/Sidebar.tsx';
import { SignIn } from './components/SignIn.tsx';
import { Steps } from './components/Steps.tsx';
import { formatUsage, UsagePanel } from './components/UsagePanel.tsx';
import { type Lang, LangContext, texts, useT } from './i18n.ts';
import { conversationUsage } from './session.ts';
import { sessionInHash, useChat } from './useChat.ts';
import { useStandingPermissions } from './useStanding.ts';

const TOKEN_KEY = 'procura.token';
/** How often the history is read again, so a scheduled run that landed meanwhile shows up with its badge. */
const HISTORY_POLL_MS = 30_000;
const LANG_KEY = 'procura.lang';

export function App() {
  const [lang, setLang] = useState<Lang>(() => (localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'zh'));
  const [token, setToken] = useState(() => localStorage.getItem(TOKEN_KEY) ?? '');
  const [signInError, setSignInError] = useState<string>();
  const [checking, setChecking] = useState(Boolean(token));
  const [me, setMe] = useState<Me>();
  const client = useMemo(() => (token ? new ChatClient(window.location.origin, token) : undefined), [token]);

  useEffect(() => {
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = texts[lang].appName;
    localStorage.setItem(LANG_KEY, lang);
  }, [lang]);

  // A token counts as signed in once the API accepts it.
  useEffect(() => {
    if (!client) return;
    let live = true;
    setChecking(true);
    client
      .sessions()
      .then(async () => {
        if (!live) return;
        localStorage.setItem(TOKEN_KEY, client.token);
        setSignInError(undefined);
        // Without it the top bar leaves the user's name and the admin's tools out.
        setMe(await client.me().catch(() => undefined));
      })
      .catch((error: Error) => {
        if (!live) return;
        setSignInError(error instanceof ApiError && error.status === 401 ? `${error.message}` : error.message);
        localStorage.removeItem(TOKEN_KEY);
        setToken('');
      })
      .finally(() => live && setChecking(false));
    return () => {
      live = false;
    };
  }, [client]);

  const signOut = useCallback(() => {
    localStorage.removeItem(TOKEN_KEY);
    setToken('');
    setMe(undefined);
  }, []);

  return (
    <LangContext.Provider value={lang}>
      {client && !checking ? (
        <Workspace client={client} me={me} lang={lang} onLang={setLang} onSignOut={signOut} />
      ) : (
        <SignIn onSignIn={setToken} error={signInError} busy={checking} />
      )}
    </LangContext.Provider>
  );
}

function Workspace({
  client,
  me,
  lang,
  onLang,
  onSignOut,
}: {
  client: ChatClient;
  me?: Me;
  lang: Lang;
  onLang: (lang: Lang) => void;
  onSignOut: () => void;
}) {
  const t = useT();
  const chat = useChat(client);
  const standing = useStandingPermissions(chat.view, chat.busy, chat.decide);
  const [offline, setOffline] = useState(false);
  const [suggestions, setSuggestions] = useState<AgentSuggestions>();
  const [agents, setAgents] = useState<AgentLabel[]>([]);
  const [tab, setTab] = useState<InspectorTabId>('steps');
  const [wide, setWide] = useState(false);
  const [showUsage, setShowUsage] = useState(false);
  const [showSchedules, setShowSchedules] = useState(false);
  /** On narrow screens the history and the side panel are drawers over the conversation; at most one is open. */
  const [drawer, setDrawer] = useState<'history' | 'panel'>();
  /** The RFQ screen the address names (`#/rfqs…`): shown in place of the conversation. */
  const [rfqs, setRfqs] = useState<RfqRoute | undefined>(() => rfqRoute(window.location.hash));
  const { view, refreshSessions, open } = chat;
  const spent = conversationUsage(view);
  const unseen = chat.sessions.filter((s) => s.unseen);
  // Opening a scheduled session marks it read on the server: read the history again for the badge.
  const openSession = useCallback(
    async (id: string) => {
      setDrawer(undefined);
      setRfqs(undefined);
      await open(id);
      await refreshSessions();
    },
    [open, refreshSessions],
  );

  useEffect(() => {
    if (!drawer) return;
    const close = (e: KeyboardEvent) => e.key === 'Escape' && setDrawer(undefined);
    window.addEventListener('keydown', close);
    return () => window.removeEventListener('keydown', close);
  }, [drawer]);

  useEffect(() => {
    const timer = setInterval(() => void refreshSessions(), HISTORY_POLL_MS);
    return () => clearInterval(timer);
  }, [refreshSessions]);

  useEffect(() => {
    client
      .ready()
      .then((ready) => {
        const model = ready.checks.model?.detail;
        setOffline(typeof model === 'object' && model !== null && 'provider' in model && model.provider === 'offline');
      })
      .catch(() => undefined);
    client
      .suggestions()
      .then(setSuggestions)
      .catch(() => undefined);
    // Steps are grouped and named by the configured agents; without the list they show the agents' raw names.
    client
      .agents()
      .then(setAgents)
      .catch(() => undefined);
    void refreshSessions();
    const id = sessionInHash(window.location.hash);
    if (id) void openSession(id);
  }, [client, refreshSessions, openSession]);

  // The address leads: a `#/s/<id>` link pasted into this tab, or Back and Forward, open the conversation it names.
  const openId = view.id;
  const { newChat } = chat;
  useEffect(() => {
    const follow = () => {
      const id = sessionInHash(window.location.hash);
      const rfq = rfqRoute(window.location.hash);
      setRfqs(rfq);
      if (id && id !== openId) void openSession(id);
      else if (!id && !rfq && openId) newChat();
    };
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, [openId, openSession, newChat]);

  // An award is asked of the sourcing agent in a conversation of its own: each of its writes waits for approval.
  const { send } = chat;
  const award = useCallback(
    (rfqNo: string, supplier: SupplierName) => {
      setRfqs(undefined);
      newChat();
      send(awardRequest(rfqNo, supplier, lang === 'en'));
    },
    [newChat, send, lang],
  );

  const charts = view.messages.flatMap((m) => m.charts);
  const hasReport = view.files.some((f) => f.endsWith('.md'));
  // An order the agent opened is the news; else the steps while a run works, then the report once one exists.
  useEffect(() => {
    setTab(view.openOrder ? 'order' : view.running || !hasReport ? 'steps' : 'report');
  }, [hasReport, view.running, view.openOrder]);

  return (
    <div className={`app ${wide ? 'app-wide' : ''}`}>
      <header className="topbar" inert={Boolean(drawer)}>
        <button
          type="button"
          className="btn btn-ghost drawer-toggle toggle-history"
          data-testid="open-history"
          aria-expanded={drawer === 'history'}
          onClick={() => setDrawer((d) => (d === 'history' ? undefined : 'history'))}
        >
          ☰ {t('openHistory')}
        </button>
        <div className="brand">
          <span className="logo" aria-hidden>
            P
          </span>
          <strong className="brand-name">{t('appName')}</strong>
        </div>
        <div className="session-heading">
          {view.title || (view.id ? '' : t('newChat'))}
          {spent.input_tokens + spent.output_tokens > 0 && (
            <span className="usage-chip" data-testid="conversation-usage" title={t('conversationCost')}>
              {formatUsage(spent, t)}
            </span>
          )}
        </div>
        <div className="topbar-actions">
          <button
            type="button"
            className="btn btn-ghost drawer-toggle toggle-panel"
            data-testid="open-panel"
            aria-expanded={drawer === 'panel'}
            onClick={() => setDrawer((d) => (d === 'panel' ? undefined : 'panel'))}
          >
            {t('openPanel')}
            {(view.running || view.pending.length > 0) && <span className="dot" />}
          </button>
          {unseen.length > 0 && (
            <button
              type="button"
              className="btn btn-ghost notify-badge"
              data-testid="scheduled-badge"
              title={`${unseen.length} ${t('unseenScheduled')}`}
              onClick={() => void openSession(unseen[0].id)}
            >
              ⏰ <span className="notify-count">{unseen.length}</span>
            </button>
          )}
          <a className="btn btn-ghost" data-testid="rfqs" href="#/rfqs" aria-current={rfqs ? 'page' : undefined}>
            {t('rfqs')}
          </a>
          <button
            type="button"
            className="btn btn-ghost"
            data-testid="schedules"
            onClick={() => setShowSchedules((s) => !s)}
          >
            {t('schedules')}
          </button>
          {me?.role === 'admin' && (
            <button type="button" className="btn btn-ghost" data-testid="usage" onClick={() => setShowUsage((s) => !s)}>
              {t('usage')}
            </button>
          )}
          {me && (
            <span className="user-chip" data-testid="user">
              {me.username}
              <span className="badge">{me.role}</span>
            </span>
          )}
          <button type="button" className="btn btn-ghost" onClick={() => onLang(lang === 'zh' ? 'en' : 'zh')}>
            {t('language')}
          </button>
          <button type="button" className="btn btn-ghost" onClick={onSignOut}>
            {t('signOut')}
          </button>
        </div>
      </header>
      {drawer && (
        <button
          type="button"
          className="drawer-backdrop"
          // A pointer's way out; keys have Escape and the drawer's own close button.
          aria-hidden
          tabIndex={-1}
          onClick={() => setDrawer(undefined)}
        />
      )}
      <Sidebar
        open={drawer === 'history'}
        inert={drawer === 'panel'}
        onClose={() => setDrawer(undefined)}
        sessions={chat.sessions}
        currentId={view.id}
        onOpen={openSession}
        onNew={() => {
          setDrawer(undefined);
          setRfqs(undefined);
          chat.newChat();
        }}
        onRename={chat.rename}
        onDelete={chat.remove}
      />
      <main className="main" inert={Boolean(drawer)}>
        {offline && (
          <div className="banner banner-info" data-testid="offline-banner">
            {t('offline')}
          </div>
        )}
        {chat.reconnecting && <ConnectionBanner state={chat.reconnecting} onRetry={chat.reconnectNow} />}
        {chat.notice && (
          <div className="banner banner-warn">
            {t(chat.notice)}
            <button type="button" className="link" onClick={chat.dismissNotice}>
              {t('dismiss')}
            </button>
          </div>
        )}
        {showUsage && <UsagePanel client={client} onClose={() => setShowUsage(false)} />}
        {showSchedules && (
          <SchedulesPanel
            client={client}
            onClose={() => setShowSchedules(false)}
            onRan={() => void refreshSessions()}
          />
        )}
        {view.error && (
          <div className="banner banner-error" data-testid="error-banner">
            <strong>{t('error')}：</strong>
            {view.error}
            {view.retryable && (
              <button type="button" className="btn btn-small" data-testid="retry" onClick={chat.retry}>
                ↻ {t('retry')}
              </button>
            )}
            <button type="button" className="link" onClick={chat.dismissError}>
              {t('dismiss')}
            </button>
          </div>
        )}
        {rfqs ? (
          <RfqsView client={client} route={rfqs} onAward={award} />
        ) : (
          <Conversation
            view={view}
            busy={chat.busy}
            stopping={chat.stopping}
            suggestions={suggestions}
            onSend={chat.send}
            onResend={chat.resend}
            onStop={chat.stop}
            onDecide={chat.decide}
            standing={standing}
            onRetry={chat.retry}
            refused={chat.refused}
          />
        )}
      </main>
      <aside
        className={`inspector ${drawer === 'panel' ? 'drawer-open' : ''}`}
        aria-label={t('panel')}
        inert={drawer === 'history'}
      >
        <div className="inspector-head">
          <div className="tabs" role="tablist">
            <InspectorTab id="steps" current={tab} onSelect={setTab}>
              {t('steps')}
              {view.running && <span className="spinner spinner-small" />}
            </InspectorTab>
            <InspectorTab id="report" current={tab} onSelect={setTab} testId="report-tab">
              {t('report')}
              {hasReport && <span className="dot" />}
            </InspectorTab>
            {view.openOrder && (
              <InspectorTab id="order" current={tab} onSelect={setTab} testId="order-tab">
                {t('order')}
              </InspectorTab>
            )}
            {me?.role === 'admin' && (
              <InspectorTab id="approvals" current={tab} onSelect={setTab} testId="approvals-tab">
                {t('approvals')}
              </InspectorTab>
            )}
          </div>
          <button
            type="button"
            className="tab-tool tool-wide"
            title={wide ? t('collapse') : t('expand')}
            aria-label={wide ? t('collapse') : t('expand')}
            onClick={() => setWide((w) => !w)}
          >
            {wide ? '⟩' : '⟨'}
          </button>
          <button
            type="button"
            className="tab-tool tool-close"
            data-testid="close-panel"
            title={t('close')}
            aria-label={t('close')}
            onClick={() => setDrawer(undefined)}
          >
            ×
          </button>
        </div>
        <div
          className="inspector-body"
          id="inspector-panel"
          role="tabpanel"
          aria-labelledby={`tab-${tab}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: the WAI-ARIA tabs pattern: a scrollable panel takes focus so the keyboard can scroll it
          tabIndex={0}
        >
          {tab === 'order' && view.openOrder && <OrderPanel order={view.openOrder} />}
          {tab === 'steps' && (
            <Steps
              steps={view.steps}
              agents={agents}
              live={view.running}
              paused={!view.running && view.pending.length > 0}
            />
          )}
          {tab === 'report' && <ReportPanel client={client} sessionId={view.id} files={view.files} charts={charts} />}
          {tab === 'approvals' && <ApprovalQueue client={client} />}
        </div>
      </aside>
    </div>
  );
}

type InspectorTabId = 'steps' | 'report' | 'order' | 'approvals';

/** One tab of the side panel. */
function InspectorTab({
  id,
  current,
  onSelect,
  testId,
  children,
}: {
  id: InspectorTabId;
  current: InspectorTabId;
  onSelect: (id: InspectorTabId) => void;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      role="tab"
      id={`tab-${id}`}
      aria-controls="inspector-panel"
      data-testid={testId}
      aria-selected={current === id}
      className={current === id ? 'active' : ''}
      onClick={() => onSelect(id)}
    >
      {children}
    </button>
  );
}
