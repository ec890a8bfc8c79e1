import { useCallback, useEffect, useRef, useState } from 'react';
import {
  ApiError,
  type ChatClient,
  type ChatEvent,
  decisionRecord,
  type HumanDecision,
  type SessionSummary,
  type StreamEnd,
  type StreamResult,
} from '../../src/protocol/index.ts';
import {
  addRecord,
  applyEvent,
  emptyView,
  type SessionView,
  startTurn,
  viewFromHistory,
  withoutLiveRun,
} from './session.ts';

const ANSWERED_KEY = 'procura.answered';
/**
 * Pauses between looks at an idle conversation (a 204, or a stream that ended with nothing new): doubling from the
 * first after each look that found nothing, never above the last, so an idle tab asks a few times a minute at most.
 * A look that found something starts again from the first; another tab of this browser starting a run in the
 * conversation ends the pause at once.
 */
const WATCH_FIRST_MS = 5_000;
const WATCH_MAX_MS = 30_000;
/** Tabs of this browser tell each other on this channel which conversation a run started in. */
const RUNS_CHANNEL = 'procura.runs';
const viewKey = (id: string) => `procura.view.${id}`;
/** What a request that never reached the server says (the browser's own text is English-only "Failed to fetch"). */
const CONNECTION_LOST = '连接中断：服务器暂时无法访问 / connection lost: the server cannot be reached';
/** Waits before each attempt to rejoin a run whose stream was lost: doubling from the first, never above the last. */
const REJOIN_FIRST_MS = 1_000;
const REJOIN_MAX_MS = 15_000;

/** Whether a send was refused because the session already has a run (started in another tab or browser). */
const activeElsewhere = (error: unknown) =>
  error instanceof ApiError && error.status === 409 && typeof error.body?.run_id === 'string';

/** A run whose stream was lost while it worked: the next attempt to rejoin it, and when it is due. */
export interface Reconnecting {
  attempt: number;
  at: number;
}

/** Resolves after `ms`, at once when `now` is called (the person's Retry), or when `signal` aborts. */
function pause(ms: number, signal: AbortSignal, now: { current?: () => void }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      now.current = undefined;
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
    now.current = done;
  });
}

/** Makes `hash` the tab's address as a new history entry, unless it is already (a pasted link, Back). */
function navigateTo(hash: string): void {
  if (window.location.hash !== hash) window.history.pushState(null, '', hash);
}

/** The session a `#/s/<id>` address names (undefined for any other address). */
export function sessionInHash(hash: string): string | undefined {
  return /^#\/s\/([\w-]+)/.exec(hash)?.[1];
}

/** Interrupts this browser already decided: their cards never come back, even when an event replays them. */
function loadAnswered(): Set<string> {
  try {
    return new Set(JSON.parse(localStorage.getItem(ANSWERED_KEY) ?? '[]') as string[]);
  } catch {
    return new Set();
  }
}

function cachedView(id: string): SessionView | undefined {
  try {
    const raw = localStorage.getItem(viewKey(id));
    return raw ? (JSON.parse(raw) as SessionView) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The chat state of the signed-in user: the session list and the open session, kept in step with the server's
 * event stream. The server's transcript is the truth: the browser's copy of a session only stands in for it while
 * it loads (another tab may have gone on since), and a live run is followed from the events the server holds.
 */
export function useChat(client: ChatClient) {
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [view, setView] = useState<SessionView>(emptyView());
  const [busy, setBusy] = useState(false);
  const [stopping, setStopping] = useState(false);
  const [notice, setNotice] = useState<string>();
  /** A message the server refused because the session already had a run: given back to the composer. */
  const [refused, setRefused] = useState<{ message: string }>();
  /** Set while the stream of a live run is lost and being rejoined. */
  const [reconnecting, setReconnecting] = useState<Reconnecting>();
  /** Cuts the current wait before the next rejoin attempt short (the banner's Retry). */
  const rejoinNow = useRef<() => void>(undefined);
  const answered = useRef(loadAnswered());
  const stream = useRef<AbortController | undefined>(undefined);
  /** Follows the open conversation while it is idle, so what happens later (an admin's decision) shows live. */
  const watch = useRef<AbortController | undefined>(undefined);
  /** Ends the idle conversation's current pause: there is something to look at now. */
  const watchNow = useRef<() => void>(undefined);
  /** Where this tab tells the browser's other tabs that it started a run, and hears theirs. */
  const tabs = useRef<BroadcastChannel | undefined>(undefined);
  /** Reloads a conversation from the server (set once `open` is declared below; the follow-up of a moved run). */
  const reload = useRef<(id: string) => void>(() => undefined);
  const viewRef = useRef(view);
  /** Bumped whenever the user switches sessions, so a late answer for the previous one is dropped. */
  const navigation = useRef(0);
  /** Whether the current request heard anything from the server (a message that heard nothing was not sent). */
  const heard = useRef(false);
  viewRef.current = view;

  useEffect(() => {
    if (view.id) localStorage.setItem(viewKey(view.id), JSON.stringify(view));
  }, [view]);

  // Another tab of this browser started a run in the conversation this one shows while idle: look now.
  useEffect(() => {
    if (typeof BroadcastChannel !== 'function') return;
    const channel = new BroadcastChannel(RUNS_CHANNEL);
    channel.onmessage = (message: MessageEvent<{ session?: string }>) => {
      if (message.data.session && message.data.session === viewRef.current.id) watchNow.current?.();
    };
    tabs.current = channel;
    return () => channel.close();
  }, []);

  const refreshSessions = useCallback(async () => {
    try {
      setSessions(await client.sessions());
    } catch (error) {
      // A refresh that did not reach the server keeps the list it had: the connection is the run's banner to tell,
      // not a second one beside it.
      if (error instanceof ApiError) setNotice(error.message);
    }
  }, [client]);

  const onEvent = useCallback(
    (event: ChatEvent) => {
      const sessionId = (event.data as { session_id?: string }).session_id;
      // A new session appears in the history as soon as the server names it.
      if (sessionId && sessionId !== viewRef.current.id) {
        viewRef.current = { ...viewRef.current, id: sessionId };
        window.history.replaceState(null, '', `#/s/${sessionId}`);
        void refreshSessions();
      }
      // The first event of a run this tab started or joined: the server has it, so the other tabs may look.
      if (!heard.current && stream.current && viewRef.current.id)
        tabs.current?.postMessage({ session: viewRef.current.id });
      heard.current = true;
      setReconnecting(undefined);
      // Known at once, not at the next render: a stream started right after this one ends follows on from here.
      if (event.id) viewRef.current = { ...viewRef.current, lastEventId: event.id };
      setView((v) => applyEvent(v, event, answered.current));
    },
    [refreshSessions],
  );

  const stopWatching = useCallback(() => {
    watch.current?.abort();
    watch.current = undefined;
  }, []);

  /**
   * Follows the idle conversation `id` from its last event until the user leaves it or starts something: the server
   * tells it there of later events, such as an admin's decision on the order it drafted (a stream it holds open
   * while one waits). When the server has nothing to tell (a 204), it looks again after a pause that grows while
   * nothing happens; a run started since (in another tab or browser) reloads the conversation from the server.
   */
  const startWatching = useCallback(
    (id: string) => {
      watch.current?.abort();
      const controller = new AbortController();
      watch.current = controller;
      const { signal } = controller;
      void (async () => {
        for (let quiet = 0; !signal.aborted && viewRef.current.id === id && viewRef.current.lastEventId; ) {
          const before = viewRef.current.lastEventId;
          let end: StreamEnd | undefined;
          try {
            const { lastEventId, runId } = viewRef.current;
            end = (await client.attach(id, onEvent, signal, lastEventId, runId)).end;
          } catch (error) {
            // Gone, or no longer ours: nothing more will come.
            if (error instanceof ApiError && [401, 403, 404].includes(error.status)) return;
            end = undefined;
          }
          if (signal.aborted || end === 'aborted') return;
          if (end === 'moved') return reload.current(id);
          quiet = viewRef.current.lastEventId !== before ? 0 : quiet + 1;
          await pause(Math.min(WATCH_FIRST_MS * 2 ** quiet, WATCH_MAX_MS), signal, watchNow);
        }
      })();
    },
    [client, onEvent],
  );

  /**
   * Rejoins the open session's run after its stream was lost, from the last event shown (`Last-Event-ID`, so the
   * answer goes on without a gap or a repeat), waiting longer after each failed attempt, until the run ends, waits
   * for a person, or the server refuses (that error is thrown). Each attempt is announced in the banner.
   */
  const rejoin = useCallback(
    async (signal: AbortSignal): Promise<StreamResult['end']> => {
      for (let attempt = 1; ; attempt++) {
        const id = viewRef.current.id;
        if (!id) return 'error';
        const wait = Math.min(REJOIN_FIRST_MS * 2 ** (attempt - 1), REJOIN_MAX_MS);
        setReconnecting({ attempt, at: Date.now() + wait });
        await pause(wait, signal, rejoinNow);
        if (signal.aborted) return 'aborted';
        try {
          const { end } = await client.attach(id, onEvent, signal, viewRef.current.lastEventId);
          if (end !== 'cut') return end;
        } catch (error) {
          if (signal.aborted) return 'aborted';
          if (error instanceof ApiError) throw error;
        }
      }
    },
    [client, onEvent],
  );

  /** Runs one streamed request to its end, then settles the view and the session list. */
  const follow = useCallback(
    async (run: (signal: AbortSignal) => Promise<StreamResult>) => {
      stopWatching();
      stream.current?.abort();
      const controller = new AbortController();
      stream.current = controller;
      setBusy(true);
      heard.current = false;
      let end: StreamResult['end'] | undefined;
      try {
        try {
          const result = await run(controller.signal);
          end = result.end;
          // Event ids count within this run: the idle watch that follows asks for this run's later events only.
          if (result.runId && viewRef.current.id === result.sessionId) {
            const { runId } = result;
            viewRef.current = { ...viewRef.current, runId };
            setView((v) => ({ ...v, runId }));
          }
        } catch (error) {
          // The server had the request (it answered) and the connection dropped: the run goes on there.
          if (error instanceof ApiError || !heard.current || controller.signal.aborted) throw error;
          end = 'cut';
        }
        if (end === 'cut') end = await rejoin(controller.signal);
      } catch (error) {
        if (!controller.signal.aborted) {
          const network = !(error instanceof ApiError);
          const message = network ? CONNECTION_LOST : error.message;
          const unsent = network && !heard.current;
          setView((v) => ({
            ...v,
            running: false,
            error: message,
            // The message never reached the server: mark it, with a resend, rather than let it look sent.
            messages: unsent
              ? v.messages.map((m, i) =>
                  i === v.messages.length - 1 && m.role === 'user' ? { ...m, unsent: true } : m,
                )
              : v.messages,
          }));
        }
      } finally {
        if (stream.current === controller) setReconnecting(undefined);
        if (stream.current === controller) {
          stream.current = undefined;
          setBusy(false);
          setStopping(false);
          setView((v) => (v.running && !controller.signal.aborted ? { ...v, running: false } : v));
          void refreshSessions();
          const id = viewRef.current.id;
          // Another run than this one is the session's now: what it shows is the server's to tell.
          if (id && !controller.signal.aborted) end === 'moved' ? reload.current(id) : startWatching(id);
          // The run that kept a message out has ended: the composer is free again.
          if (end === 'done' || end === 'error') setRefused(undefined);
        }
      }
    },
    [refreshSessions, rejoin, startWatching, stopWatching],
  );

  /**
   * Starts a run for `message` in the open conversation. When the server refuses it because the conversation
   * already has a run (another tab's), the message leaves the transcript and goes back to the composer, the person
   * is told, and the conversation is reloaded from the server with that run in it.
   */
  const start = useCallback(
    (current: SessionView, message: string) => {
      setRefused(undefined);
      setView(startTurn(current, message));
      void follow(async (signal) => {
        try {
          return await client.start(message, current.id, onEvent, signal, { joinActive: false });
        } catch (error) {
          if (!activeElsewhere(error)) throw error;
          setRefused({ message });
          setView((v) => ({ ...v, messages: v.messages.filter((m) => m.role !== 'user' || m.content !== message) }));
          return { end: 'moved', sessionId: current.id };
        }
      });
    },
    [client, follow, onEvent],
  );

  const send = useCallback((message: string) => start(viewRef.current, message), [start]);

  /** Sends an unsent message again (it leaves the transcript and comes back as a new turn). */
  const resend = useCallback(
    (messageId: string) => {
      const message = viewRef.current.messages.find((m) => m.id === messageId);
      if (!message) return;
      const current = {
        ...viewRef.current,
        messages: viewRef.current.messages.filter((m) => m.id !== messageId),
        error: undefined,
      };
      viewRef.current = current;
      start(current, message.content);
    },
    [start],
  );

  const decide = useCallback(
    (interruptId: string, decision: HumanDecision) => {
      const { id } = viewRef.current;
      if (!id) return;
      answered.current.add(interruptId);
      localStorage.setItem(ANSWERED_KEY, JSON.stringify([...answered.current].slice(-500)));
      // The card collapses into its record at once; the server's copy of the record (same id) follows.
      setView((v) => {
        const card = v.pending.find((p) => p.interrupt_id === interruptId);
        const next = card ? addRecord(v, decisionRecord(interruptId, card, decision)) : v;
        return {
          ...next,
          pending: next.pending.filter((p) => p.interrupt_id !== interruptId),
          running: true,
          error: undefined,
        };
      });
      void follow((signal) => client.resume(id, interruptId, decision, onEvent, signal));
    },
    [client, follow, onEvent],
  );

  /** Takes a failed or stopped run up again where it stopped. */
  const retry = useCallback(() => {
    const { id } = viewRef.current;
    if (!id) return;
    setView((v) => ({ ...v, running: true, stopped: false, retryable: false, error: undefined }));
    void follow((signal) => client.retry(id, onEvent, signal));
  }, [client, follow, onEvent]);

  const stop = useCallback(async () => {
    const { id } = viewRef.current;
    if (!id) return;
    setStopping(true);
    try {
      await client.cancel(id);
    } catch (error) {
      setNotice((error as Error).message);
      setStopping(false);
    }
  }, [client]);

  /**
   * Opens a saved session: this browser's last copy first (instant, a placeholder), then the server's transcript in
   * its place; a live run is followed from its first event, so nothing of it is missed or shown twice.
   */
  const open = useCallback(
    async (id: string) => {
      const visit = ++navigation.current;
      if (id !== viewRef.current.id) setRefused(undefined);
      stopWatching();
      stream.current?.abort();
      stream.current = undefined;
      setBusy(false);
      setReconnecting(undefined);
      // A conversation opened from the list is a step of its own in the tab's history, so Back returns to the last.
      navigateTo(`#/s/${id}`);
      const cached = cachedView(id);
      setView(cached ? { ...cached, running: false } : { ...emptyView(id), running: true });
      let saved: SessionView;
      try {
        const raw = await client.session(id);
        if (visit !== navigation.current) return;
        saved = viewFromHistory(id, raw, answered.current);
      } catch (error) {
        if (visit !== navigation.current) return;
        if (error instanceof ApiError && error.status === 404) {
          localStorage.removeItem(viewKey(id));
          window.history.replaceState(null, '', '#/');
          setView(emptyView());
          setNotice('sessionGone');
          return;
        }
        setView((v) => ({ ...v, running: false, error: (error as Error).message }));
        return;
      }
      // Another tab may have gone on since this browser's copy was kept: what the server holds replaces it whole.
      const base = saved.running ? withoutLiveRun(saved) : saved;
      viewRef.current = base;
      setView(base);
      if (base.running) void follow((signal) => client.attach(id, onEvent, signal));
      else startWatching(id);
    },
    [client, follow, onEvent, startWatching, stopWatching],
  );

  reload.current = (id) => void open(id);

  const newChat = useCallback(() => {
    navigation.current++;
    setRefused(undefined);
    stopWatching();
    stream.current?.abort();
    stream.current = undefined;
    setBusy(false);
    setReconnecting(undefined);
    navigateTo('#/');
    // At once, not at the next render: a message sent right after (an award asked from an RFQ) starts a new session.
    viewRef.current = emptyView();
    setView(viewRef.current);
  }, [stopWatching]);

  const rename = useCallback(
    async (id: string, title: string) => {
      try {
        await client.rename(id, title);
        if (viewRef.current.id === id) setView((v) => ({ ...v, title }));
      } catch (error) {
        setNotice((error as Error).message);
      }
      await refreshSessions();
    },
    [client, refreshSessions],
  );

  const remove = useCallback(
    async (id: string) => {
      try {
        await client.remove(id);
        localStorage.removeItem(viewKey(id));
        if (viewRef.current.id === id) newChat();
      } catch (error) {
        setNotice((error as Error).message);
      }
      await refreshSessions();
    },
    [client, newChat, refreshSessions],
  );

  useEffect(
    () => () => {
      stream.current?.abort();
      watch.current?.abort();
    },
    [],
  );

  return {
    sessions,
    view,
    busy,
    stopping,
    notice,
    reconnecting,
    /** Tries to rejoin the lost stream now instead of at the next attempt's time. */
    reconnectNow: () => rejoinNow.current?.(),
    dismissNotice: () => setNotice(undefined),
    dismissError: () => setView((v) => ({ ...v, error: undefined })),
    refreshSessions,
    /** A message refused because another tab's run was active, given back to the composer. */
    refused,
    send,
    resend,
    decide,
    retry,
    stop,
    open,
    newChat,
    rename,
    remove,
  };
}
