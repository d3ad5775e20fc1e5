// An engine-3 scenario on the chart: each event's window (the records whose scenario_event carries its
// type) as a hatched band over the state bands, edged and labelled with the type, so a reader sees where
// the injected event acts and which one it is.

// Dark enough for white label text (at least 4.5:1), apart from the line colours and the alert red.
const EVENT_COLORS = ['#9d174d', '#5b21b6', '#115e59', '#854d0e'];
/** Height of the labelled strip above the first panel's plot area, in CSS pixels. */
export const EVENT_STRIP = 18;

/** The type of the event active at a record, or null: JSON null, or an empty CSV field. */
export const eventOf = (record) => (typeof record.scenario_event === 'string' && record.scenario_event !== '' ? record.scenario_event : null);

/**
 * Consecutive records of one sequence carrying the same event type, as { type, sequence, from, to }
 * (interaction ids), with the steps within the sequence (fromStep, toStep, 1 for its first record) and the
 * records' indexes (fromIndex, toIndex). A sequence's records need not be next to each other: in a run of
 * order "time" the subjects' records interleave.
 */
export const eventWindows = (records) => {
  const windows = [];
  // Per sequence: its records so far, and the window its latest record is in (or null).
  const steps = new Map();
  const open = new Map();
  records.forEach((record, index) => {
    const step = (steps.get(record.sequence_id) ?? 0) + 1;
    steps.set(record.sequence_id, step);
    const type = eventOf(record);
    const last = open.get(record.sequence_id) ?? null;
    if (type === null) {
      open.set(record.sequence_id, null);
    } else if (last !== null && last.type === type) {
      Object.assign(last, { to: record.interaction_id, toStep: step, toIndex: index });
    } else {
      const window = { type, sequence: record.sequence_id, from: record.interaction_id, to: record.interaction_id, fromStep: step, toStep: step, fromIndex: index, toIndex: index };
      windows.push(window);
      open.set(record.sequence_id, window);
    }
  });
  return windows;
};

/** One colour per event type, by its place in the preset's catalog, so a type keeps its colour across runs. */
export const eventColors = (types) => new Map(types.map((type, index) => [type, EVENT_COLORS[index % EVENT_COLORS.length]]));

const hatches = new Map();
/** A diagonal hatch in the colour, made once per colour and pixel ratio on a canvas of its own. */
const hatchOf = (ctx, color) => {
  const key = `${color}@${devicePixelRatio}`;
  if (!hatches.has(key)) {
    const size = Math.round(8 * devicePixelRatio);
    const tile = document.createElement('canvas');
    tile.width = size;
    tile.height = size;
    const pen = tile.getContext('2d');
    pen.strokeStyle = color;
    pen.globalAlpha = 0.45;
    pen.lineWidth = Math.max(1, devicePixelRatio);
    pen.beginPath();
    pen.moveTo(0, size);
    pen.lineTo(size, 0);
    pen.moveTo(-size / 2, size / 2);
    pen.lineTo(size / 2, -size / 2);
    pen.moveTo(size / 2, size * 1.5);
    pen.lineTo(size * 1.5, size / 2);
    pen.stroke();
    hatches.set(key, tile);
  }
  return ctx.createPattern(hatches.get(key), 'repeat');
};

/**
 * The windows hatched behind grid and lines (after the state bands, which the plugin list draws first),
 * edged in the type's colour; with `labelled`, a strip above the plot area names each window's type
 * where it fits (the figure's legend names them all). Each window spans x0 to x1 in the x scale's units.
 */
export const scenarioBandsPlugin = (windows, colors, { labelled }) => {
  const span = (u, window) => [u.valToPos(window.x0, 'x', true), u.valToPos(window.x1, 'x', true)];
  return {
    hooks: {
      drawClear: [
        (u) => {
          const { ctx, bbox } = u;
          ctx.save();
          ctx.beginPath();
          ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
          ctx.clip();
          for (const window of windows) {
            const [x0, x1] = span(u, window);
            const color = colors.get(window.type) ?? EVENT_COLORS[0];
            ctx.fillStyle = hatchOf(ctx, color);
            ctx.fillRect(x0, bbox.top, Math.max(1, x1 - x0), bbox.height);
            ctx.fillStyle = color;
            const edge = Math.max(1, devicePixelRatio);
            ctx.fillRect(x0, bbox.top, edge, bbox.height);
            ctx.fillRect(Math.max(x0, x1 - edge), bbox.top, edge, bbox.height);
          }
          ctx.restore();
        },
      ],
      draw: [
        (u) => {
          if (!labelled) {
            return;
          }
          const { ctx, bbox } = u;
          const height = EVENT_STRIP * devicePixelRatio;
          const top = bbox.top - height - 2 * devicePixelRatio;
          ctx.save();
          ctx.beginPath();
          ctx.rect(bbox.left, top, bbox.width, height);
          ctx.clip();
          ctx.font = `600 ${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
          ctx.textBaseline = 'middle';
          ctx.textAlign = 'left';
          const padding = 4 * devicePixelRatio;
          const right = bbox.left + bbox.width;
          // A window narrower than its type's name gets a tag as wide as the name, up to the next window.
          const starts = windows.map((window) => span(u, window)[0]).sort((a, b) => a - b);
          for (const window of windows) {
            const [x0, x1] = span(u, window);
            const next = starts.find((start) => start > x0 + 1) ?? right;
            const wanted = ctx.measureText(window.type).width + 2 * padding;
            const width = Math.max(x1 - x0, Math.min(wanted, next - x0 - devicePixelRatio, right - x0));
            ctx.fillStyle = colors.get(window.type) ?? EVENT_COLORS[0];
            ctx.fillRect(x0, top, Math.max(1, width), height);
            if (wanted <= width) {
              ctx.fillStyle = '#ffffff';
              ctx.fillText(window.type, x0 + padding, top + height / 2);
            }
          }
          ctx.restore();
        },
      ],
    },
  };
};
