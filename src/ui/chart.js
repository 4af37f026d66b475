// A thin layer over uPlot (the global the vendored iife defines): a captioned figure that
// follows its container's width, category axes for bar charts, and vertical marks.
// figure.chart is the uPlot instance, so a test can read what was drawn (data and series).
// uPlot's script and style are fetched by chartsReady() when the first chart is due, not by
// index.html: a page with nothing to draw neither waits for them nor downloads them.

import { el } from './dom.js';

const UPLOT_STYLE = '/ui/vendor/uPlot.min.css';
const UPLOT_SCRIPT = '/ui/vendor/uPlot.iife.min.js';

function loadInHead(element) {
  return new Promise((resolve, reject) => {
    element.addEventListener('load', resolve, { once: true });
    element.addEventListener('error', () => {
      element.remove();
      reject(new Error(`The chart library did not load (${element.href || element.src}).`));
    }, { once: true });
    document.head.append(element);
  });
}

let uplotLoaded = null;

// Resolves once uPlot and its style are in the page (each fetched once); a failure is retried on
// the next call.
export function chartsReady() {
  uplotLoaded ??= Promise.all([
    loadInHead(el('link', { rel: 'stylesheet', href: UPLOT_STYLE })),
    loadInHead(el('script', { src: UPLOT_SCRIPT })),
  ]).catch((error) => {
    uplotLoaded = null;
    throw error;
  });
  return uplotLoaded;
}

export const COLORS = ['#1f6feb', '#d1242f', '#1a7f37', '#8250df', '#bc4c00', '#0a7c86', '#6e7781', '#bf3989'];

export function color(index) {
  return COLORS[index % COLORS.length];
}

const HEIGHT = 260;

export function figure(container, kind, title, sourceUrl) {
  const node = el('figure', { className: 'chart', 'data-chart': kind },
    el('figcaption', {}, title, ' ', el('a', { href: sourceUrl, className: 'source', text: 'JSON' })));
  container.append(node);
  return node;
}

export function draw(node, options, data) {
  const plot = el('div', { className: 'plot' });
  node.insertBefore(plot, node.querySelector('figcaption').nextSibling);
  const width = Math.max(260, Math.floor(node.clientWidth || 600));
  const chart = new uPlot({ width, height: HEIGHT, ...options }, data, plot);
  Object.defineProperty(node, 'chart', { value: chart });
  const observer = new ResizeObserver(() => {
    // A figure taken off the page (the view re-rendered) lets its chart go.
    if (!node.isConnected) {
      observer.disconnect();
      chart.destroy();
      return;
    }
    const next = Math.max(260, Math.floor(node.clientWidth));
    if (next !== chart.width) chart.setSize({ width: next, height: HEIGHT });
  });
  observer.observe(node);
  return chart;
}

// Options for an x axis of categories 0..n-1 named by labels.
export function categoryAxis(labels) {
  return {
    scale: { time: false, range: () => [-0.5, labels.length - 0.5] },
    axis: {
      splits: () => labels.map((_, index) => index),
      values: (_, splits) => splits.map((index) => labels[index] ?? ''),
      gap: 6,
    },
  };
}

// Side by side bars: with two series the first leans left of its tick, the second right.
export function barSeries(label, index, count, unitFormatter) {
  const align = count === 2 ? (index === 0 ? -1 : 1) : 0;
  return {
    label,
    stroke: color(index),
    fill: `${color(index)}cc`,
    width: 1,
    paths: uPlot.paths.bars({ size: [count === 2 ? 0.4 : 0.6, 80], align }),
    points: { show: false },
    value: (_, value) => (value === null || value === undefined ? '—' : unitFormatter(value)),
  };
}

export function lineSeries(label, index, unitFormatter, scale) {
  return {
    label,
    stroke: color(index),
    width: 2,
    scale: scale || 'y',
    points: { show: true, size: 5 },
    value: (_, value) => (value === null || value === undefined ? '—' : unitFormatter(value)),
  };
}

// Draws a labelled vertical line at each mark's x value (p50, p99 ...).
export function marksPlugin(marks) {
  return {
    hooks: {
      draw: [(chart) => {
        const { ctx } = chart;
        const { top, height } = chart.bbox;
        ctx.save();
        ctx.font = `${Math.round(11 * devicePixelRatio)}px sans-serif`;
        marks.forEach((mark, index) => {
          const x = Math.round(chart.valToPos(mark.value, 'x', true));
          ctx.strokeStyle = mark.color;
          ctx.fillStyle = mark.color;
          ctx.lineWidth = devicePixelRatio;
          ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          ctx.fillText(mark.label, x + 3 * devicePixelRatio, top + (12 + 12 * index) * devicePixelRatio);
        });
        ctx.restore();
      }],
    },
  };
}

// Bars start at zero: a bar's length is its value, so two bars compare by eye.
export const zeroBased = { range: (_, __, max) => [0, max > 0 ? max * 1.1 : 1] };
