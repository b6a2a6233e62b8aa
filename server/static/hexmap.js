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

function drawHexes(root, layout, onHex) {
  const g = svg("g", { class: "hexes" });
  const fontSize = layout.hex_flats_mm * 0.16;
  for (const h of layout.hexes) {
    const poly = svg("polygon", { points: pts(h.points), fill: h.fill, class: "hex",
      "data-testid": `hex-${hexKey(h.hex)}`, "data-q": h.hex[0], "data-r": h.hex[1],
      "data-terrain": h.terrain, "data-x": h.x, "data-y": h.y });
    const title = `hex ${h.label}: ${h.terrain}`;
    poly.append(svg("title", {}, title));
    poly.addEventListener("click", () => onHex(h.hex));
    g.append(poly);
    g.append(svg("text", { x: h.x, y: h.y - layout.hex_flats_mm * 0.34, class: "hex-label",
      "font-size": fontSize, "text-anchor": "middle" }, h.label));
    if (h.terrain !== "clear") {
      g.append(svg("text", { x: h.x, y: h.y + layout.hex_flats_mm * 0.42, class: "terrain-label",
        "font-size": fontSize, "text-anchor": "middle" }, h.terrain));
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
      "font-size": u.height * 0.34, "text-anchor": "middle" }, shortName(u.name)));
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

// Draws the layout into the <svg> element; onUnit(id) and onHex([q, r]) receive the taps.
export function drawMap(el, layout, { onUnit, onHex }) {
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
