import { formatNumber } from './format.js';

// A model's states and transitions drawn from its definition as an SVG graph, with a layout of its own:
// states in columns by their distance (in transitions) from the initial state, so a funnel reads left to
// right; a transition to a later column is a straight arrow, one back (or within a column) an arc. The
// initial state has an arrow from nowhere, a terminal one a double border. Built with createElementNS:
// nothing is parsed as markup (the console's CSP and Trusted Types, docs/console.md).

const SVG = 'http://www.w3.org/2000/svg';
const NODE_WIDTH = 132;
const NODE_HEIGHT = 40;
const COLUMN_GAP = 150;
const ROW_GAP = 34;
const MARGIN = 36;

const svg = (tag, attributes = {}, ...children) => {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    node.setAttribute(name, String(value));
  }
  node.append(...children);
  return node;
};

/** The initial states: the one named, or those of the weights object. */
const initialStates = (definition) =>
  typeof definition.initial === 'string' ? [definition.initial] : Object.keys(definition.initial ?? {}).filter((state) => definition.initial[state] !== 0);

/**
 * A weight as a reader wants it: a number as itself, a param's name with the default profile's value,
 * any other expression as written.
 */
const describeWeight = (definition, weight) => {
  if (typeof weight === 'number') {
    return formatNumber(weight);
  }
  const profiles = definition.profiles ?? {};
  const profile = profiles[definition.default_profile ?? Object.keys(profiles)[0]] ?? {};
  const text = String(weight).trim();
  if (Object.hasOwn(profile, text) && typeof profile[text] === 'number') {
    return `${text} = ${formatNumber(profile[text])}`;
  }
  return text.length > 28 ? `${text.slice(0, 27)}…` : text;
};

/** The graph's parts, laid out: nodes with positions, edges with their ends and labels. */
const layOutStates = (definition) => {
  const states = Array.isArray(definition.states) ? definition.states.filter((state) => typeof state === 'string') : [];
  const transitions = definition.transitions !== null && typeof definition.transitions === 'object' ? definition.transitions : {};
  const terminal = new Set(Array.isArray(definition.terminal) ? definition.terminal : []);
  const starts = initialStates(definition).filter((state) => states.includes(state));
  const depth = new Map(starts.map((state) => [state, 0]));
  const queue = [...starts];
  while (queue.length > 0) {
    const state = queue.shift();
    for (const next of Object.keys(transitions[state] ?? {})) {
      if (states.includes(next) && !depth.has(next) && transitions[state][next] !== 0) {
        depth.set(next, depth.get(state) + 1);
        queue.push(next);
      }
    }
  }
  // Terminal states line up in the last column, where a sequence ends, so most arrows point forward.
  const inner = [...depth].filter(([state]) => !terminal.has(state)).map(([, value]) => value);
  const last = Math.max(0, ...inner) + 1;
  for (const state of depth.keys()) {
    if (terminal.has(state) && !starts.includes(state)) {
      depth.set(state, last);
    }
  }
  // States no transition reaches sit in a column of their own after the others.
  const deepest = Math.max(-1, ...depth.values());
  const columns = new Map();
  for (const state of states) {
    const column = depth.get(state) ?? deepest + 1;
    columns.set(column, [...(columns.get(column) ?? []), state]);
  }
  const tallest = Math.max(1, ...[...columns.values()].map((column) => column.length));
  const nodes = new Map();
  for (const [column, members] of columns) {
    const offset = ((tallest - members.length) * (NODE_HEIGHT + ROW_GAP)) / 2;
    members.forEach((state, row) => {
      nodes.set(state, {
        state,
        x: MARGIN + column * (NODE_WIDTH + COLUMN_GAP),
        y: MARGIN + offset + row * (NODE_HEIGHT + ROW_GAP),
        initial: starts.includes(state),
        terminal: terminal.has(state),
        reachable: depth.has(state),
      });
    });
  }
  const edges = [];
  for (const [from, targets] of Object.entries(transitions)) {
    for (const [to, weight] of Object.entries(targets ?? {})) {
      if (nodes.has(from) && nodes.has(to) && from !== to) {
        edges.push({ from, to, weight, label: describeWeight(definition, weight) });
      }
    }
  }
  const width = MARGIN * 2 + Math.max(1, columns.size) * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP;
  const height = MARGIN * 2 + tallest * (NODE_HEIGHT + ROW_GAP) - ROW_GAP;
  return { nodes, edges, width, height };
};

/** Draws the graph into `container` (an element), with a list of the transitions in words beside it. */
export const drawStateGraph = (container, definition, { titleId }) => {
  const { nodes, edges, width, height } = layOutStates(definition);
  const marker = svg('marker', { id: `${titleId}-arrow`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, svg('path', { d: 'M0,0 L10,5 L0,10 z', class: 'graph-arrowhead' }));
  // Arrows that jump a column would cross the states between: they loop under the graph, each a little lower.
  const lowest = Math.max(0, ...[...nodes.values()].map((node) => node.y + NODE_HEIGHT));
  let loops = 0;
  const edgeNodes = edges.map((edge) => {
    const a = nodes.get(edge.from);
    const b = nodes.get(edge.to);
    let d;
    let labelX;
    let labelY;
    if (b.x - a.x > NODE_WIDTH + COLUMN_GAP) {
      loops += 1;
      const x1 = a.x + NODE_WIDTH / 2;
      const x2 = b.x + NODE_WIDTH / 2 - 12 * loops;
      const floor = lowest + 18 + 26 * loops;
      d = `M${x1},${a.y + NODE_HEIGHT} C${x1},${floor} ${x2},${floor} ${x2},${b.y + NODE_HEIGHT}`;
      labelX = (x1 + x2) / 2;
      labelY = 0.25 * (a.y + b.y) / 2 + 0.75 * floor + 4;
    } else if (b.x > a.x) {
      const x1 = a.x + NODE_WIDTH;
      const y1 = a.y + NODE_HEIGHT / 2;
      const x2 = b.x;
      const y2 = b.y + NODE_HEIGHT / 2;
      d = `M${x1},${y1} C${x1 + COLUMN_GAP / 2},${y1} ${x2 - COLUMN_GAP / 2},${y2} ${x2},${y2}`;
      // Past the middle, towards the target: arrows that leave one state together part there.
      const along = 0.62;
      const point = (p0, p1, p2, p3) => (1 - along) ** 3 * p0 + 3 * (1 - along) ** 2 * along * p1 + 3 * (1 - along) * along ** 2 * p2 + along ** 3 * p3;
      labelX = point(x1, x1 + COLUMN_GAP / 2, x2 - COLUMN_GAP / 2, x2);
      labelY = point(y1, y1, y2, y2) - 5;
    } else {
      // Back, or within a column: an arc above the two nodes (below when the target is lower down).
      const below = b.y > a.y;
      const y1 = below ? a.y + NODE_HEIGHT : a.y;
      const y2 = below ? b.y + NODE_HEIGHT : b.y;
      const x1 = a.x + NODE_WIDTH * 0.35;
      const x2 = b.x + NODE_WIDTH * 0.65;
      const lift = Math.max(28, Math.abs(x1 - x2) * 0.25);
      const control = below ? Math.max(y1, y2) + lift : Math.min(y1, y2) - lift;
      d = `M${x1},${y1} C${x1},${control} ${x2},${control} ${x2},${y2}`;
      labelX = (x1 + x2) / 2;
      labelY = below ? control - lift * 0.15 : control + lift * 0.3;
    }
    return svg(
      'g',
      { class: 'graph-edge', 'data-from': edge.from, 'data-to': edge.to },
      svg('path', { d, class: 'graph-edge-line', 'marker-end': `url(#${titleId}-arrow)` }),
      svg('text', { x: labelX, y: labelY, class: 'graph-edge-label', 'text-anchor': 'middle' }, edge.label),
    );
  });
  const nodeNodes = [...nodes.values()].map((node) =>
    svg(
      'g',
      { class: `graph-node${node.terminal ? ' is-terminal' : ''}${node.initial ? ' is-initial' : ''}${node.reachable ? '' : ' is-unreachable'}`, 'data-state': node.state },
      node.initial
        ? svg('path', { d: `M${node.x - 26},${node.y + NODE_HEIGHT / 2} L${node.x - 2},${node.y + NODE_HEIGHT / 2}`, class: 'graph-edge-line', 'marker-end': `url(#${titleId}-arrow)` })
        : '',
      svg('rect', { x: node.x, y: node.y, width: NODE_WIDTH, height: NODE_HEIGHT, rx: 8, class: 'graph-node-box' }),
      node.terminal ? svg('rect', { x: node.x + 4, y: node.y + 4, width: NODE_WIDTH - 8, height: NODE_HEIGHT - 8, rx: 5, class: 'graph-node-inner' }) : '',
      svg('text', { x: node.x + NODE_WIDTH / 2, y: node.y + NODE_HEIGHT / 2 + 5, 'text-anchor': 'middle', class: 'graph-node-label' }, node.state.length > 16 ? `${node.state.slice(0, 15)}…` : node.state),
    ),
  );
  const tall = height + (loops === 0 ? 0 : 18 + 26 * loops);
  const picture = svg(
    'svg',
    { viewBox: `0 0 ${width} ${tall}`, width, class: 'state-graph', role: 'img', 'aria-labelledby': titleId },
    svg('defs', {}, marker),
    ...edgeNodes,
    ...nodeNodes,
  );
  container.replaceChildren(picture);
  return {
    states: nodes.size,
    transitions: edges.length,
    words: [...nodes.values()].map((node) => {
      const out = edges.filter((edge) => edge.from === node.state);
      const kind = [node.initial ? 'initial' : '', node.terminal ? 'terminal' : '', node.reachable ? '' : 'never reached'].filter((word) => word !== '').join(', ');
      const moves = out.length === 0 ? (node.terminal ? 'ends the sequence' : 'stays') : `moves to ${out.map((edge) => `${edge.to} (${edge.label})`).join(', ')}`;
      return `${node.state}${kind === '' ? '' : ` (${kind})`}: ${moves}.`;
    }),
  };
};
