// The hex view's ruling panel: the engine's ruling (POST /api/hex/...) in words and figures.
// Every sentence and number shown is the engine's; this module only lays them out.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

export const signed = (v) => (typeof v === "number" ? (v > 0 ? `+${v}` : `${v}`) : "–");
const words = (s) => String(s ?? "").replaceAll("_", " ").replaceAll(".", ": ");

// A table of figures; on a phone each row becomes a block whose cells carry their column's
// name (hex.css), so a long "why" stays readable on a narrow screen.
function table(testid, head, rows) {
  const t = el("table", { class: "figures stack", "data-testid": testid });
  t.append(el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { text: h })))));
  const body = el("tbody");
  for (const r of rows) {
    [...r.children].forEach((td, i) => td.setAttribute("data-label", head[i]));
    body.append(r);
  }
  t.append(body);
  return t;
}

function verdict(r) {
  const legal = r.legal ? "legal" : "not legal";
  const box = el("div", { class: `hex-verdict ${r.legal ? "ok" : "no"}`, "data-testid": "hex-verdict",
    "data-legal": String(r.legal) }, el("span", { text: legal }));
  if (r.complete === false) box.append(el("small", { text: "incomplete: a table of the rules data is missing" }));
  return box;
}

function combat(r) {
  const out = [];
  if (r.net !== null && r.net !== undefined) {
    out.push(el("p", { class: "hex-net", "data-testid": "hex-net", "data-net": String(r.net) },
      el("span", { class: "big", text: signed(r.net) }),
      el("span", { text: ` to the attacker's die roll${r.capped ? " (capped at ±4)" : ""}` })));
  }
  if (r.odds) {
    out.push(el("p", { "data-testid": "hex-odds", "data-ratio": r.odds.ratio, "data-value": String(r.odds.value) },
      `Odds ${r.odds.attack} to ${r.odds.defence}: ${r.odds.ratio}, ${signed(r.odds.value)}`));
  }
  const rows = (r.items || []).map((it) => el("tr", { "data-testid": `hex-item-${it.slot}`,
    "data-value": String(it.value) },
    el("td", { text: words(it.slot) }), el("td", { class: "num", text: signed(it.value) }),
    el("td", { text: it.rule }), el("td", { text: it.why })));
  if (rows.length) out.push(table("hex-items", ["modifier", "value", "rule", "why"], rows));
  return out;
}

function reactions(r, names) {
  const rows = (r.candidates || []).map((c) => {
    const why = c.blocked.map((b) => `${words(b.kind)}: ${b.message} (${b.rule})`).join("; ");
    return el("tr", { "data-testid": `hex-candidate-${c.unit}`, "data-eligible": c.eligible.join(" ") },
      el("td", { text: names[c.unit] || c.unit }),
      el("td", { class: `${c.eligible.length ? "yes" : "no"} bare`,
        text: c.eligible.length ? `may react: ${c.eligible.map(words).join(", ")}` : "may not react" }),
      el("td", { text: why }));
  });
  return rows.length ? [table("hex-candidates", ["unit", "reactions", "why not the others"], rows)] : [];
}

function assault(r) {
  const out = [];
  if (r.approach_distance !== null && r.approach_distance !== undefined) {
    out.push(el("p", { "data-testid": "hex-approach", text: `Approach distance: ${r.approach_distance}` }));
  }
  const rows = (r.melee || []).map((m) => el("tr", { "data-testid": `hex-melee-${m.id}`, "data-value": String(m.value) },
    el("td", { text: m.id }), el("td", { class: "num", text: String(m.value) }),
    el("td", { text: (m.shares || []).map((s) => `${s.unit} ${s.share} x${s.multiplier} (${s.aspect})`).join(" + ") })));
  if (rows.length) out.push(table("hex-melee", ["target", "melee value", "shares"], rows));
  if (r.stack_order) {
    const order = Array.isArray(r.stack_order) ? r.stack_order.join(", ")
      : Object.entries(r.stack_order).map(([h, ids]) => `${h}: ${[].concat(ids).join(", ")}`).join("; ");
    out.push(el("p", { text: `Stack order after the declaration, top first: ${order}` }));
  }
  return out;
}

function rally(r) {
  const facts = [["allowance", r.allowance], ["spent", r.spent],
    ["ends in", r.end_hex ? r.end_hex.join(",") : null], ["formation after", r.formation_after]];
  return [el("p", { "data-testid": "hex-rally" }, facts.filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${v}`).join(" · "))];
}

function cup(r) {
  const rows = (r.draws || []).map((d) => el("tr", { "data-testid": `hex-draw-${d.n}` },
    el("td", { class: "num", text: String(d.n) }), el("td", { text: d.chit }),
    el("td", { text: d.side }), el("td", { text: (d.acts || []).join(", ") })));
  return rows.length ? [table("hex-draws", ["draw", "chit", "side", "acts, in order"], rows)] : [];
}

const BODIES = { close_combat: combat, reactions, assault, rally, cup };

// The readings a ruling relied on, as a player reads them: the option, the reading chosen and
// the game's rule (options maps a decision id to {name, rule, doc}; chosen holds the page's).
function readings(r, options, chosen) {
  const items = (r.decisions || []).map((d) => options[d]).filter(Boolean).map((o) =>
    el("li", { text: `${words(o.name)}: ${String(chosen[o.name] ?? o.default)} (${o.rule})` +
      (o.doc ? ` - ${o.doc}` : "") }));
  if (!items.length) return null;
  return el("div", {}, el("p", { class: "hint", text: "Readings of unclear rules this ruling relied on (change them under “Readings”):" }),
    el("ul", { class: "explanation", "data-testid": "hex-readings" }, ...items));
}

// Fills the panel with ruling r. names maps unit ids to names.
export function showRuling(panel, r, { names = {}, options = {}, chosen = {} } = {}) {
  panel.replaceChildren();
  panel.append(el("h3", { text: words(r.ruling) }), verdict(r));
  for (const part of (BODIES[r.ruling] || (() => []))(r, names)) panel.append(part);
  panel.append(el("ol", { class: "explanation", "data-testid": "hex-explanation" },
    ...r.explanation.map((s) => el("li", { text: s }))));
  const reasons = r.reasons.map((x) => el("li", { "data-code": x.code, class: x.refuses ? "refused" : "note" },
    `${x.refuses ? "Refused" : "Note"} (${x.rule}): ${x.message}`));
  if (reasons.length) panel.append(el("ul", { class: "explanation", "data-testid": "hex-reasons" }, ...reasons));
  const read = readings(r, options, chosen);
  if (read) panel.append(read);
  panel.hidden = false;
}
