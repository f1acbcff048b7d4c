// The status page's moving parts: meters, the waterfall of one turn, and the chart of the last turns.

/** Latency steps in the order they happen, with the words the page uses for them. */
export const STEPS = [
  ['endpointing', 'end of speech decided'],
  ['transcript', 'transcript'],
  ['firstToken', 'first token'],
  ['firstSentence', 'first sentence'],
  ['firstAudioByte', 'first audio byte'],
  ['firstSamplePlayed', 'first sample played'],
];
const COLORS = ['#8c8c8c', '#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#e15759'];
const FLOOR_DBFS = -90;

const byId = (id) => document.getElementById(id);
const clamp = (x) => Math.max(0, Math.min(1, x));

function setBar(bar, share, value) {
  bar.style.width = `${(clamp(share) * 100).toFixed(1)}%`;
  bar.dataset.value = String(value);
}

/** Thresholds drawn on the meters, from what the page was told about this run. */
export function setThresholds(about) {
  if (typeof about.vadThreshold === 'number') byId('vad-mark').style.left = `${about.vadThreshold * 100}%`;
  else byId('vad-mark').hidden = true;
}

export function showMeter(meter, about) {
  setBar(byId('level'), (meter.levelDbfs - FLOOR_DBFS) / -FLOOR_DBFS, meter.levelDbfs);
  byId('level-text').textContent = `${Math.round(meter.levelDbfs)} dBFS`;
  setBar(byId('vad'), meter.vad, meter.vad);
  byId('vad-text').textContent = meter.vad.toFixed(2);
  const wake = byId('wake-meters');
  for (const [model, score] of Object.entries(meter.wake ?? {})) {
    let row = wake.querySelector(`[data-model="${CSS.escape(model)}"]`);
    if (!row) {
      row = document.createElement('div');
      row.className = 'meter-row';
      row.dataset.model = model;
      const label = document.createElement('span');
      label.className = 'meter-label';
      label.textContent = `wake: ${model}`;
      const box = document.createElement('div');
      box.className = 'meter';
      const fill = document.createElement('div');
      fill.className = 'fill wake';
      box.append(fill);
      if (typeof about.wakeThreshold === 'number') {
        const mark = document.createElement('div');
        mark.className = 'mark';
        mark.style.left = `${about.wakeThreshold * 100}%`;
        box.append(mark);
      }
      const text = document.createElement('span');
      text.className = 'meter-value';
      row.append(label, box, text);
      wake.append(row);
    }
    setBar(row.querySelector('.fill'), score, score);
    row.querySelector('.meter-value').textContent = score.toFixed(2);
  }
  const echo = meter.echo;
  byId('echo').textContent = echo
    ? `echo canceller: ${echo.active ? 'hearing hark' : 'idle'}, delay ${echo.delayMs} ms, ` +
      `${echo.erleDb === null ? 'no echo yet' : `taking out ${echo.erleDb} dB`}${echo.adapted ? ', adapted' : ''}`
    : 'echo canceller: none';
}

/** One turn's steps as bars, each from the step before it to its own time. */
export function showWaterfall(turn) {
  const box = byId('waterfall');
  box.replaceChildren();
  byId('waterfall-turn').textContent = turn ? `#${turn.id}` : '–';
  if (!turn) return;
  const steps = STEPS.filter(([key]) => typeof turn.latencyMs[key] === 'number');
  const end = Math.max(1, ...steps.map(([key]) => turn.latencyMs[key]));
  let from = 0;
  steps.forEach(([key, words]) => {
    const at = turn.latencyMs[key];
    const row = document.createElement('div');
    row.className = 'step';
    row.dataset.step = key;
    const label = document.createElement('span');
    label.className = 'step-label';
    label.textContent = words;
    const lane = document.createElement('div');
    lane.className = 'lane';
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.style.marginLeft = `${(Math.min(from, at) / end) * 100}%`;
    bar.style.width = `${Math.max(0.5, (Math.abs(at - from) / end) * 100)}%`;
    bar.style.background = COLORS[STEPS.findIndex(([k]) => k === key)];
    lane.append(bar);
    const value = document.createElement('span');
    value.className = 'step-value';
    value.textContent = `${at} ms`;
    row.append(label, lane, value);
    box.append(row);
    from = Math.max(from, at);
  });
}

let chart;

/** The last turns' latencies, one line per step, and their medians and 90th percentiles; until a turn, a line saying so. */
export function showTurns(report, onPick) {
  const turns = report.turns;
  const shown = STEPS.filter(([key]) => key !== 'endpointing');
  const box = byId('chart');
  box.hidden = turns.length === 0;
  byId('chart-empty').hidden = turns.length > 0;
  const data = [turns.map((t) => t.id), ...shown.map(([key]) => turns.map((t) => t.latencyMs[key] ?? null))];
  // Made once there is something to draw, at the width the box has then: a page as narrow as a phone's fits it.
  if (!chart && turns.length > 0 && typeof uPlot === 'function') {
    const width = () => Math.max(200, box.clientWidth);
    chart = new uPlot(
      {
        width: width(),
        height: 220,
        scales: { x: { time: false } },
        axes: [
          { label: 'turn', incrs: [1, 2, 5, 10, 20, 50] },
          { label: 'ms', size: 60 },
        ],
        // The legend names the lines; the values are on the axes and in the table below.
        legend: { live: false },
        series: [
          { label: 'turn' },
          ...shown.map(([key, words]) => ({
            label: words,
            stroke: COLORS[STEPS.findIndex(([k]) => k === key)],
            width: 2,
            points: { size: 5 },
            spanGaps: true,
          })),
        ],
        cursor: { bind: { click: () => (event) => onPick(chart, event) } },
      },
      data,
      box,
    );
    new ResizeObserver(() => chart.setSize({ width: width(), height: 220 })).observe(box);
  } else if (chart) {
    chart.setData(data);
  }
  const body = byId('medians').querySelector('tbody');
  body.replaceChildren();
  for (const [key, words] of STEPS) {
    const stat = report.stats[key];
    if (!stat) continue;
    const row = document.createElement('tr');
    row.dataset.step = key;
    for (const text of [words, `${stat.median} ms`, `${stat.p90} ms`, String(stat.count)]) {
      const cell = document.createElement('td');
      cell.textContent = text;
      row.append(cell);
    }
    body.append(row);
  }
}

/** The turn under the chart's cursor, when it is on one. */
export function pickedTurn(picked, turns) {
  const index = picked?.cursor?.idx;
  return typeof index === 'number' ? turns[index] : undefined;
}
