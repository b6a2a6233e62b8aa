// The hex view's map: draws the layout the server computes (GET /api/hex/samples/{name} or
// POST /api/hex/map, from the engine's own hex geometry) as SVG. Nothing here decides a rule
// or places a hex: every point comes from the layout, so the picture is the engine's grid.

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

const pts = (list) => list.map(([x, y]) => `${x},${y}`).join(" ");
export const hexKey = (h) => `${h[0]}_${h[1]}`;

// A counter's text: the unit's initials or the first letters of its name, to fit a counter.
function shortName(name) {
  const words = String(name).replace(/['’]s\b/g, "").split(/[\s\-/]+/).filter(Boolean);
  if (words.length === 1) return words[0].slice(0, 4);
  return words.slice(0, 3).map((w) => w[0]).join("").toUpperCase();
}

function arrowHead(defs) {
  const m = svg("marker", { id: "hex-arrow", viewBox: "0 0 10 10", refX: "8", refY: "5",
    markerWidth: "4", markerHeight: "4", orient: "auto-start-reverse" });
  m.append(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "context-stroke" }));
  defs.append(m);
}

// The units standing in each hex, top of the stack first ("q_r" -> units).
function unitsByHex(layout) {
  const found = new Map();
  for (const u of [...layout.units].sort((a, b) => a.stack_depth - b.stack_depth)) {
    for (const h of u.hexes) {
      const k = hexKey(h);
      if (!found.has(k)) found.set(k, []);
      found.get(k).push(u);
    }
  }
  return found;
}

// The hex first in reading order (top row, then left): the map's one Tab stop at first.
function firstHex(layout) {
  return [...layout.hexes].sort((a, b) => a.y - b.y || a.x - b.x)[0];
}

function drawHexes(root, layout, onHex) {
  const g = svg("g", { class: "hexes" });
  const fontSize = layout.hex_flats_mm * 0.16;
  const units = unitsByHex(layout);
  const first = firstHex(layout);
  for (const h of layout.hexes) {
    // Keyboard: one Tab stop for the whole map (roving tabindex); the arrow keys move it from
    // hex to hex, Enter or Space taps (keys() below). The name says what stands there.
    const there = units.get(hexKey(h.hex)) || [];
    const name = `hex ${h.label}, ${h.terrain}` + (there.length
      ? `: ${there.map((u) => `${u.name} (${u.side})`).join(", ")}` : "");
    const poly = svg("polygon", { points: pts(h.points), fill: h.fill, class: "hex",
      "data-testid": `hex-${hexKey(h.hex)}`, "data-q": h.hex[0], "data-r": h.hex[1],
      "data-terrain": h.terrain, "data-x": h.x, "data-y": h.y, role: "button",
      tabindex: h === first ? "0" : "-1", "aria-label": name,
      "data-units": there.map((u) => u.id).join(" ") });
    const title = `hex ${h.label}: ${h.terrain}`;
    poly.append(svg("title", {}, title));
    poly.addEventListener("click", () => onHex(h.hex));
    g.append(poly);
    // The labels are in the hex's name already: hidden from screen readers.
    g.append(svg("text", { x: h.x, y: h.y - layout.hex_flats_mm * 0.34, class: "hex-label",
      "font-size": fontSize, "text-anchor": "middle", "aria-hidden": "true" }, h.label));
    if (h.terrain !== "clear") {
      g.append(svg("text", { x: h.x, y: h.y + layout.hex_flats_mm * 0.42, class: "terrain-label",
        "font-size": fontSize, "text-anchor": "middle", "aria-hidden": "true" }, h.terrain));
    }
  }
  root.append(g);
}

function drawHexsides(root, layout) {
  const g = svg("g", { class: "hexsides" });
  for (const s of layout.hexsides) {
    const line = svg("line", { x1: s.a[0], y1: s.a[1], x2: s.b[0], y2: s.b[1], stroke: s.stroke,
      "stroke-width": layout.hex_flats_mm * 0.09, "stroke-linecap": "round", class: "feature",
      "data-feature": s.feature });
    line.append(svg("title", {}, s.feature));
    g.append(line);
  }
  root.append(g);
}

function drawMarkers(root, layout) {
  const g = svg("g", { class: "markers" });
  for (const m of layout.markers) {
    g.append(svg("line", { x1: m.a[0], y1: m.a[1], x2: m.b[0], y2: m.b[1], class: "marker",
      "stroke-width": layout.hex_flats_mm * 0.05, "marker-end": "url(#hex-arrow)" }));
  }
  root.append(g);
}

function drawUnits(root, layout, onUnit) {
  const g = svg("g", { class: "units" });
  // The bottom of each stack first, so the top counter lies on top (and takes the tap).
  const order = [...layout.units].sort((a, b) => b.stack_depth - a.stack_depth);
  for (const u of order) {
    const c = svg("g", { class: "counter", "data-testid": `counter-${u.id}`, "data-unit": u.id,
      "data-side": u.side, tabindex: "-1" });
    const body = svg("g", { transform: `translate(${u.x} ${u.y}) rotate(${u.angle})` });
    body.append(svg("rect", { x: -u.width / 2, y: -u.height / 2, width: u.width, height: u.height,
      rx: u.height * 0.12, fill: u.colour, class: "counter-body" }));
    c.append(body);
    c.append(svg("text", { x: u.x, y: u.y + u.height * 0.12, class: "counter-text",
      "font-size": u.height * 0.34, "text-anchor": "middle", "aria-hidden": "true" },
    shortName(u.name)));
    if (u.arrow) {
      c.append(svg("line", { x1: u.arrow[0][0], y1: u.arrow[0][1], x2: u.arrow[1][0],
        y2: u.arrow[1][1], class: "facing", "stroke-width": u.height * 0.09,
        "marker-end": "url(#hex-arrow)" }));
    }
    if (u.stack_size > 1 && u.stack_depth === 0) {
      const bx = u.x + u.width / 2 - u.height * 0.12;
      const by = u.y - u.height / 2 + u.height * 0.12;
      c.append(svg("circle", { cx: bx, cy: by, r: u.height * 0.2, class: "stack-badge" }));
      c.append(svg("text", { x: bx, y: by + u.height * 0.1, class: "stack-badge-text",
        "font-size": u.height * 0.28, "text-anchor": "middle" }, String(u.stack_size)));
    }
    c.append(svg("title", {}, `${u.name} (${u.side}, ${u.type.replaceAll("_", " ")}, ` +
      `${u.formation.replaceAll("_", " ")})` + (u.stack_size > 1
        ? `, ${u.stack_depth + 1} of ${u.stack_size} in its stack` : "")));
    c.addEventListener("click", (ev) => { ev.stopPropagation(); onUnit(u.id); });
    g.append(c);
  }
  root.append(g);
}

function drawLeaders(root, layout) {
  const g = svg("g", { class: "leaders" });
  for (const l of layout.leaders) {
    const c = svg("circle", { cx: l.x, cy: l.y, r: layout.hex_flats_mm * 0.11, fill: l.colour,
      class: "leader", "data-testid": `leader-${l.id}` });
    c.append(svg("title", {}, `leader ${l.id}${l.rank ? ` (${l.rank})` : ""}`));
    g.append(c);
  }
  root.append(g);
}

// ---- keyboard: a roving tabindex over the hexes ----------------------------------------------

const ARROWS = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const maps = new WeakMap();  // <svg> -> what its keys act on (the layout and the tap handlers)

// The hex an arrow key moves to from hex `from`: the nearest centre within 60 degrees of the
// key's direction (on a grid of columns, right and left zig-zag between the two neighbours);
// between equally near ones, the one nearer the row (or column) the moves started on.
function step(layout, from, [dx, dy], anchor) {
  let best = null;
  let bestKey = null;
  for (const h of layout.hexes) {
    const vx = h.x - from.x;
    const vy = h.y - from.y;
    const along = vx * dx + vy * dy;
    const across = Math.abs(vx * dy - vy * dx);
    if (along <= 1e-6 || across > along * Math.tan(Math.PI / 3) + 1e-6) continue;
    const dist = Math.hypot(vx, vy);
    const off = dx ? Math.abs(h.y - anchor) : Math.abs(h.x - anchor);
    const key = [Math.round(dist * 1000), off];
    if (!bestKey || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
      best = h;
      bestKey = key;
    }
  }
  return best;
}

function polygonOf(el, h) {
  return el.querySelector(`polygon.hex[data-testid="hex-${hexKey(h.hex)}"]`);
}

function moveFocus(el, poly) {
  for (const p of el.querySelectorAll('polygon.hex[tabindex="0"]')) p.setAttribute("tabindex", "-1");
  poly.setAttribute("tabindex", "0");
  poly.focus();
}

function showFocusRing(el, poly) {
  const g = el.querySelector("g.focus");
  if (!g) return;
  g.replaceChildren();
  let visible = true;  // not for a pointer's tap: only where the keyboard moved the focus
  try { visible = poly.matches(":focus-visible"); } catch (e) { /* an older browser: show it */ }
  if (!visible) return;
  g.append(svg("polygon", { points: poly.getAttribute("points"), class: "focus-ring",
    "stroke-width": maps.get(el).layout.hex_flats_mm * 0.07, "data-testid": "hex-focus" }));
}

function keys(el) {
  if (maps.has(el)) return;
  maps.set(el, {});
  el.addEventListener("keydown", (ev) => {
    const poly = ev.target.closest && ev.target.closest("polygon.hex");
    const map = maps.get(el);
    if (!poly || !map.layout) return;
    const here = map.layout.hexes.find((h) => poly.dataset.testid === `hex-${hexKey(h.hex)}`);
    if (!here) return;
    if (ARROWS[ev.key]) {
      ev.preventDefault();
      const dir = ARROWS[ev.key];
      if (map.axis !== (dir[0] ? "x" : "y")) {
        map.axis = dir[0] ? "x" : "y";
        map.anchor = dir[0] ? here.y : here.x;
      }
      const next = step(map.layout, here, dir, map.anchor);
      if (next) { map.moving = true; moveFocus(el, polygonOf(el, next)); map.moving = false; }
      return;
    }
    if (ev.key === "Enter" || ev.key === " " || ev.key === "Spacebar") {
      // As a tap on the hex's centre: the counter on top when one stands there, else the hex;
      // with Shift, the hex itself (as a tap beside the counter).
      ev.preventDefault();
      const top = (poly.dataset.units || "").split(" ").filter(Boolean)[0];
      if (top && !ev.shiftKey) map.onUnit(top); else map.onHex(here.hex);
    }
  });
  el.addEventListener("focusin", (ev) => {
    const poly = ev.target.closest && ev.target.closest("polygon.hex");
    const map = maps.get(el);
    if (!poly) return;
    if (!map.moving) map.axis = null;  // a click or a Tab: the next arrows start afresh
    if (poly.getAttribute("tabindex") !== "0") moveFocus(el, poly);
    showFocusRing(el, poly);
  });
  el.addEventListener("focusout", () => {
    const g = el.querySelector("g.focus");
    if (g) g.replaceChildren();
  });
}

// Draws the layout into the <svg> element; onUnit(id) and onHex([q, r]) receive the taps, by
// pointer or by keyboard (Tab to the map, the arrows from hex to hex, Enter or Space).
export function drawMap(el, layout, { onUnit, onHex }) {
  keys(el);
  Object.assign(maps.get(el), { layout, onUnit, onHex, axis: null, anchor: 0, moving: false });
  el.replaceChildren();
  el.setAttribute("viewBox", layout.viewbox.join(" "));
  const defs = svg("defs");
  arrowHead(defs);
  el.append(defs);
  drawHexes(el, layout, onHex);
  drawHexsides(el, layout);
  el.append(svg("g", { class: "highlights" }));
  drawMarkers(el, layout);
  drawLeaders(el, layout);
  drawUnits(el, layout, onUnit);
  el.append(svg("g", { class: "route" }));
  el.append(svg("g", { class: "focus", "aria-hidden": "true" }));
}

// Marks counters and hexes by role: roles maps a unit id to a role ("defender", "attacker",
// "may-react", "may-not", ...); hexes maps "q_r" to a role; route is a list of [q, r].
export function highlight(el, layout, { roles = {}, hexes = {}, route = [] }) {
  for (const c of el.querySelectorAll(".counter")) {
    const role = roles[c.dataset.unit];
    if (role) c.setAttribute("data-role", role); else c.removeAttribute("data-role");
  }
  for (const p of el.querySelectorAll("polygon.hex")) {
    const role = hexes[hexKey([Number(p.dataset.q), Number(p.dataset.r)])];
    if (role) p.setAttribute("data-role", role); else p.removeAttribute("data-role");
  }
  const g = el.querySelector("g.route");
  g.replaceChildren();
  const centre = new Map(layout.hexes.map((h) => [hexKey(h.hex), [h.x, h.y]]));
  const line = route.map((h) => centre.get(hexKey(h))).filter(Boolean);
  if (line.length > 1) {
    g.append(svg("polyline", { points: pts(line), class: "route-line",
      "stroke-width": layout.hex_flats_mm * 0.08, "marker-end": "url(#hex-arrow)",
      "data-testid": "hex-route" }));
  }
}
