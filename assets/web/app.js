// hark's status page: one live stream (/api/events) of the voice loop's events, folded into what is shown.
import { pickedTurn, setThresholds, showMeter, showTurns, showWaterfall } from './charts.js';

const byId = (id) => document.getElementById(id);
const page = {
  snapshot: undefined,
  turns: { turns: [], stats: {} },
  /** The turn shown in the waterfall: the latest unless one was picked. */
  picked: undefined,
};

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function showState(state) {
  const badge = byId('state');
  badge.textContent = state;
  badge.dataset.state = state;
}

function showMuted(muted) {
  byId('muted-badge').hidden = !muted;
  const button = byId('mute-button');
  button.textContent = muted ? 'Unmute microphone' : 'Mute microphone';
  button.setAttribute('aria-pressed', String(muted));
}

function showBehind(behind) {
  const badge = byId('behind-badge');
  badge.hidden = !behind;
  badge.textContent = behind ? `${(behind.lagMs / 1000).toFixed(1)} s behind` : '';
}

function showNow(snapshot) {
  const hearing = byId('hearing');
  hearing.hidden = !snapshot.hearing;
  hearing.textContent = snapshot.hearing
    ? `you: ${snapshot.hearing.text}${snapshot.hearing.tentative ? ' …' : ''}`
    : '';
  hearing.classList.toggle('tentative', Boolean(snapshot.hearing?.tentative));
  const answering = byId('answering');
  answering.hidden = !snapshot.answering;
  byId('answering-query').textContent = snapshot.answering ? `you: ${snapshot.answering.query}` : '';
  byId('answering-saying').textContent = snapshot.answering ? `hark: ${snapshot.answering.saying.join(' ')}` : '';
}

/** What a failed turn could not do, by the stage that failed. */
const FAILED_AT = {
  transcription: 'could not transcribe what you said',
  reply: 'could not get a reply',
  synthesis: 'could not make its voice',
  playback: 'could not play its reply: you heard nothing of what is struck out',
};

/** A failure, plainly: what hark could not do, why, and what to do about it. */
function failureLines(what, error, fix) {
  const lines = [el('p', 'failed', `${what}: ${error}`)];
  if (fix) lines.push(el('p', 'fix', `fix: ${fix}`));
  return lines;
}

/** A turn: what was heard, what hark said, cut where the user cut in, and why a failure failed. */
function turnEntry(turn) {
  const item = el('li', 'turn');
  item.dataset.turnId = String(turn.id);
  item.dataset.interrupted = String(turn.interrupted);
  if (turn.failed) item.dataset.failed = turn.failed.stage;
  item.append(el('p', 'you', `you: ${turn.transcript}`));
  const said = el('p', 'hark');
  const cut = turn.interrupted || turn.failed;
  said.append(el('span', 'who', 'hark: '), el('span', 'heard', cut ? turn.heard : turn.reply));
  if (turn.interrupted) {
    const mark = el('span', 'cut', `✂ interrupted (${turn.interrupted})`);
    mark.title = 'the user cut in here: the rest was never heard';
    said.append(' ', mark, ' ');
    if (turn.unheard) said.append(el('s', 'unheard', turn.unheard));
  } else if (turn.failed && turn.unheard) {
    said.append(' ', el('s', 'unheard', turn.unheard));
  }
  item.append(said);
  if (turn.failed) {
    const what = FAILED_AT[turn.failed.stage] ?? `failed at ${turn.failed.stage}`;
    item.append(...failureLines(`hark ${what}`, turn.failed.error, turn.failed.fix));
  }
  const latency = turn.latencyMs.firstSamplePlayed;
  item.append(el('p', 'meta', `#${turn.id}${latency === undefined ? '' : ` · first sound after ${latency} ms`}`));
  item.addEventListener('click', () => pick(turn));
  return item;
}

/** Something that is not a turn: a wake word, a stop, a failed transcription, a tool call, the voice test. */
function eventEntry(event) {
  const item = el('li', `event ${event.type}`);
  item.dataset.type = event.type;
  switch (event.type) {
    case 'wake':
      item.textContent = `wake word: ${event.phrase}${typeof event.score === 'number' ? ` (${event.score.toFixed(2)})` : ''}`;
      break;
    case 'stop':
      item.textContent = `stopped by “${event.text}”`;
      break;
    case 'transcription-failed':
      item.classList.add('failed');
      item.textContent = `could not transcribe what you said: ${event.error}`;
      break;
    case 'ring':
      item.textContent =
        event.phase === 'started' ? `ringing: ${event.text}` : `ring stopped (${event.by}): ${event.text}`;
      break;
    case 'behind':
      item.classList.add('failed');
      item.textContent = `hark is ${(event.lagMs / 1000).toFixed(1)} s behind the microphone (${event.stage}): this machine is too slow for what it is asked to do`;
      break;
    case 'caught-up':
      item.textContent = `caught up with the microphone after ${(event.behindMs / 1000).toFixed(1)} s (at worst ${(event.worstLagMs / 1000).toFixed(1)} s behind)`;
      break;
    case 'wake-pace':
      item.textContent = `wake word: ${event.pace === 'full' ? 'back to full work per step' : `less work per step to keep up (${event.pace})`}`;
      break;
    case 'dropped':
      item.classList.add('failed');
      item.textContent = `${(event.droppedMs / 1000).toFixed(1)} s of audio could not be listened to for the wake word: this machine is too slow`;
      break;
    case 'voice-test':
      if (event.failed) {
        item.classList.add('failed');
        item.append(...failureLines(`voice test “${event.text}” failed`, event.failed, event.fix));
      } else {
        item.textContent = `voice test: “${event.text}” (${(event.playedMs / 1000).toFixed(1)} s through ${event.player})`;
      }
      break;
    case 'tool': {
      item.dataset.callId = String(event.callId);
      const outcome =
        event.phase === 'failed'
          ? ` failed: ${event.error ?? ''}`
          : event.phase === 'finished'
            ? ` → ${event.result ?? ''}`
            : ' …';
      item.textContent = `tool ${event.name}(${event.args ?? ''})${outcome}${typeof event.ms === 'number' ? ` (${event.ms} ms)` : ''}`;
      if (event.phase === 'failed') item.classList.add('failed');
      break;
    }
    default:
      item.textContent = `${event.type}: ${JSON.stringify({ ...event, type: undefined })}`;
  }
  return item;
}

function addEntry(entry) {
  const list = byId('conversation');
  const item = entry.kind === 'turn' ? turnEntry(entry.turn) : eventEntry(entry.event);
  // A tool call's later phases replace its first line.
  const callId = item.dataset.callId;
  const earlier = callId ? list.querySelector(`[data-call-id="${CSS.escape(callId)}"]`) : null;
  if (earlier) earlier.replaceWith(item);
  else list.append(item);
  while (list.children.length > 100) list.firstElementChild.remove();
  byId('conversation-empty').hidden = list.children.length > 0;
  item.scrollIntoView({ block: 'nearest' });
}

function pick(turn) {
  page.picked = turn;
  showWaterfall(turn);
}

function showAll(snapshot, turns) {
  page.snapshot = snapshot;
  // 'ringing' is hark listening while a timer rings: kept apart, so the end of the ring shows what is under it.
  snapshot.ringing = snapshot.state === 'ringing';
  if (snapshot.ringing) snapshot.state = 'listening';
  page.turns = turns;
  setThresholds(snapshot.about);
  showState(snapshot.state);
  showMuted(snapshot.muted);
  showBehind(snapshot.behind);
  showMeter(snapshot.meter, snapshot.about);
  showNow(snapshot);
  byId('conversation').replaceChildren();
  for (const entry of snapshot.conversation) addEntry(entry);
  byId('conversation-empty').hidden = snapshot.conversation.length > 0;
  showTurns(turns, (chart) => pick(pickedTurn(chart, page.turns.turns)));
  showWaterfall(page.picked ?? turns.turns.at(-1));
  showAbout(snapshot.about);
}

function showAbout(about) {
  byId('about').textContent = Object.entries(about)
    .map(([k, v]) => `${k}: ${v}`)
    .join(' · ');
}

async function refreshTurns() {
  page.turns = await api('GET', '/api/turns');
  showTurns(page.turns, (chart) => pick(pickedTurn(chart, page.turns.turns)));
  if (!page.picked) showWaterfall(page.turns.turns.at(-1));
}

function apply(event) {
  const snapshot = page.snapshot;
  if (!snapshot) return;
  switch (event.type) {
    case 'hello':
      return showAll(event.snapshot, event.turns);
    case 'meter':
      return showMeter(event, snapshot.about);
    case 'state':
      snapshot.state = event.state;
      if (event.state === 'listening') snapshot.answering = null;
      showState(snapshot.ringing && event.state === 'listening' ? 'ringing' : event.state);
      return showNow(snapshot);
    case 'muted':
      return showMuted(event.muted);
    case 'about':
      Object.assign(snapshot.about, event.about);
      return showAbout(snapshot.about);
    case 'behind':
    case 'caught-up':
      snapshot.behind = event.type === 'behind' ? { lagMs: event.lagMs, stage: event.stage } : null;
      showBehind(snapshot.behind);
      return addEntry({ kind: 'event', event });
    case 'ring':
      snapshot.ringing = event.phase === 'started';
      showState(snapshot.ringing && snapshot.state === 'listening' ? 'ringing' : snapshot.state);
      return addEntry({ kind: 'event', event });
    case 'transcript':
      snapshot.hearing = { utteranceId: event.utteranceId, text: event.text, tentative: event.tentative };
      return showNow(snapshot);
    case 'retracted':
    case 'empty':
      if (snapshot.hearing?.utteranceId === event.utteranceId) snapshot.hearing = null;
      return showNow(snapshot);
    case 'query':
      snapshot.hearing = null;
      snapshot.answering = { query: event.text, saying: [] };
      return showNow(snapshot);
    case 'saying':
      snapshot.answering?.saying.push(event.text);
      return showNow(snapshot);
    case 'turn':
      snapshot.answering = null;
      showNow(snapshot);
      addEntry({ kind: 'turn', turn: event.turn });
      return refreshTurns();
    case 'speech':
    case 'ignored':
    case 'interruption':
    case 'barge-in':
      return;
    default:
      if (event.type === 'transcription-failed') snapshot.hearing = null;
      showNow(snapshot);
      return addEntry({ kind: 'event', event });
  }
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(json.error ?? `${response.status}`);
  return json;
}

function connect() {
  const link = byId('link');
  const stream = new EventSource('/api/events');
  stream.onopen = () => {
    link.textContent = 'live';
    link.dataset.link = 'live';
  };
  stream.onerror = () => {
    link.textContent = 'reconnecting …';
    link.dataset.link = 'reconnecting';
  };
  stream.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === 'hello') showAll(event.snapshot, event.turns);
    else Promise.resolve(apply(event)).catch((error) => console.warn('hark page:', error));
  };
}

function controls() {
  byId('voice-test').addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = byId('voice-button');
    const result = byId('voice-result');
    button.disabled = true;
    result.textContent = 'speaking …';
    try {
      const text = byId('voice-text').value.trim();
      const said = await api('POST', '/api/voice-test', text ? { text } : {});
      result.textContent = `played ${(said.playedMs / 1000).toFixed(1)} s through ${said.player}, voice: ${said.voice}`;
      result.dataset.playedMs = String(said.playedMs);
    } catch (error) {
      result.textContent = `voice test: ${error.message}`;
    } finally {
      button.disabled = false;
    }
  });
  byId('mute-button').addEventListener('click', async () => {
    const muted = byId('mute-button').getAttribute('aria-pressed') !== 'true';
    try {
      showMuted((await api('POST', '/api/mute', { muted })).muted);
    } catch (error) {
      byId('control-result').textContent = `mute: ${error.message}`;
    }
  });
  byId('stop-button').addEventListener('click', async () => {
    try {
      await api('POST', '/api/stop', {});
      byId('control-result').textContent = 'told hark to stop speaking';
    } catch (error) {
      byId('control-result').textContent = `stop: ${error.message}`;
    }
  });
  onOpen('config-panel', async () => {
    byId('config').textContent = JSON.stringify(await api('GET', '/api/config'), null, 2);
  });
  onOpen('doctor-panel', async () => {
    const body = byId('doctor').querySelector('tbody');
    body.replaceChildren(el('tr', '', 'checking …'));
    const { checks } = await api('POST', '/api/doctor', {});
    body.replaceChildren(
      ...checks.map((check) => {
        const row = el('tr', `check ${check.status}`);
        row.append(el('td', 'status', check.status), el('td', '', check.check), el('td', '', check.detail));
        row.append(el('td', 'fix', check.fix ? `fix: ${check.fix}` : ''));
        return row;
      }),
    );
  });
  let tailing;
  onOpen(
    'log-panel',
    async () => {
      const tail = async () => {
        const { lines } = await api('GET', '/api/log');
        const log = byId('log');
        log.textContent = lines.join('\n');
        log.scrollTop = log.scrollHeight;
      };
      await tail();
      tailing = setInterval(() => tail().catch(() => undefined), 2000);
    },
    () => clearInterval(tailing),
  );
}

function onOpen(id, opened, closed = () => undefined) {
  const panel = byId(id);
  panel.addEventListener('toggle', () => {
    if (!panel.open) return closed();
    opened().catch((error) => {
      panel.querySelector('pre, tbody').textContent = `could not load: ${error.message}`;
    });
  });
}

page.snapshot = undefined;
controls();
connect();
