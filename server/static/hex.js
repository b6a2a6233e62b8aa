// The hex view (GET /hex): load a position (a sample with one click, or a file), tap units and
// hexes, and read the engine's ruling: close combat and reactions for Musket & Pike; assault,
// rally and the chit cup for La Bataille. Plain ES module, no build step. Every rule is the
// server's (POST /api/hex/...); this page only keeps what was tapped and shows the answer.

import { drawMap, highlight, hexKey } from "./hexmap.js";
import { el, showRuling } from "./hexruling.js";

const $ = (id) => document.getElementById(id);

// The questions the page asks, by the ruling kind of GET /api/hex/kinds.
const MODES = {
  close_combat: { route: "combat", label: "Close combat",
    hint: "Tap the defender, then its attackers (tap an attacker again to take it out). Until "
      + "you tap one, every enemy unit with the defender in its front attacks." },
  reactions: { route: "reactions", label: "Reactions",
    hint: "Tap the unit that moves, then the hex it enters: the umpire says who may react, "
      + "how, and why the others may not." },
  assault: { route: "assault", label: "Assault",
    hint: "Tap the assaulting units, then the enemy unit (or an empty hex) they assault." },
  rally: { route: "rally", label: "Rally",
    hint: "Tap a unit to see the route its rally move must take; then tap hexes in order to "
      + "check a path of your own." },
  cup: { route: "cup", label: "Chit cup",
    hint: "Draw the chits: each draw, the side that drew it and what it activates, in order." },
};
const NEEDS_HEX = new Set(["enter_hex", "end_advance"]);

const state = {
  kinds: [],          // GET /api/hex/kinds
  position: null,     // the position JSON sent with every ruling
  layout: null,       // its map layout
  rulesData: null,    // the user's own rules data (else the server's shipped file, by name)
  ruleset: null,      // the position's entry of /api/hex/kinds
  mode: null,
  pick: {},
  chosen: {},         // readings (options) the user changed
  ruling: null,
  seq: 0,
  samples: [],        // GET /api/hex/samples
  shipped: null,      // a promise: Map of the shipped rules-data names -> illustrative or not
};

function setStatus(text) { $("status").textContent = text || ""; }

function showError(text) {
  $("error").textContent = text || "";
  $("error").hidden = !text;
}

async function api(path, body) {
  let res;
  try {
    res = await fetch(path, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  } catch (e) {
    throw new Error("Could not reach the umpire server (network error): check that it is still " +
      "running, then try again.");
  }
  const data = (res.headers.get("content-type") || "").includes("json")
    ? await res.json().catch(() => null) : null;
  if (!res.ok) {
    const what = `${res.status}${res.statusText ? " " + res.statusText : ""}`;
    throw new Error(data && data.detail ? data.detail : res.status >= 500
      ? `The server did not answer the request (${what}): is umpire still running? Try again.`
      : `The request was refused before it reached umpire (${what}).`);
  }
  return data;
}

const unitOf = (id) => state.layout.units.find((u) => u.id === id);
const nameOf = (id) => (unitOf(id) ? unitOf(id).name : id);
const names = () => Object.fromEntries(state.layout.units.map((u) => [u.id, u.name]));
const unitAt = (h) => state.layout.units.find((u) => u.hexes.some((x) => hexKey(x) === hexKey(h)));
const hexText = (h) => `${h[0]},${h[1]}`;
const labelOf = (h) => {
  const found = state.layout.hexes.find((x) => hexKey(x.hex) === hexKey(h));
  return found ? found.label : hexText(h);
};

// ---- loading ------------------------------------------------------------------------------

function rulesetOf(name) {
  return state.kinds.find((r) => r.name === name || r.aliases.includes(name)) || null;
}

// The rules data a ruling uses (as the server picks it): the user's file, else the position's
// inline object, else the shipped file the position names. Names are compared as the server
// does (hex_samples.rules_data): the bare name, with or without ".json".
const bareName = (name) => (name.endsWith(".json") ? name.slice(0, -5) : name);

function shippedRulesData() {
  // Which shipped rules-data files are illustrative, read from the samples that name them
  // (GET /api/hex/samples/{name} gives each sample's rules data with its position).
  if (!state.samples.length) return Promise.resolve(new Map());  // not known yet: ask later
  if (!state.shipped) {
    state.shipped = Promise.all(state.samples.map((s) => api(`/api/hex/samples/${encodeURIComponent(s.name)}`)
      .catch(() => null))).then((found) => {
      const known = new Map();
      for (const s of found) {
        const ref = s && s.position && s.position.rules_data;
        if (typeof ref === "string" && s.rules_data) known.set(bareName(ref), Boolean(s.rules_data.illustrative));
      }
      return known;
    });
  }
  return state.shipped;
}

async function illustrativeInUse(position) {
  if (state.rulesData) return Boolean(state.rulesData.illustrative);
  const ref = position && position.rules_data;
  if (ref && typeof ref === "object") return Boolean(ref.illustrative);
  if (typeof ref !== "string") return false;
  return (await shippedRulesData()).get(bareName(ref)) === true;
}

async function showIllustrative() {
  const position = state.position;
  const shown = await illustrativeInUse(position);
  if (position === state.position) $("illustrative").hidden = !shown;
}

function useLayout(position, layout, illustrative) {
  state.position = position;
  state.layout = layout;
  state.ruleset = rulesetOf(position.ruleset);
  state.chosen = {};
  state.ruling = null;
  $("position-title").textContent = `${position.title || "Your position"} · ${state.ruleset.title}`;
  $("illustrative").hidden = !illustrative;
  $("board").hidden = false;
  $("hex-result").hidden = true;
  drawMap($("hex-map"), layout, { onUnit: tapUnit, onHex: tapHex });
  buildModes();
  buildUnitList();
  buildReadings();
  setMode(Object.keys(state.ruleset.kinds).find((k) => MODES[k]));
}

async function loadSample(name) {
  showError("");
  setStatus("Loading the sample…");
  try {
    const s = await api(`/api/hex/samples/${encodeURIComponent(name)}`);
    state.rulesData = null;
    $("rules-input").value = "";  // a sample is ruled with its own rules data
    $("rules-name").textContent = "";
    useLayout(s.position, s.map, Boolean(s.rules_data && s.rules_data.illustrative));
    setStatus(`${s.title}: loaded.`);
  } catch (e) { showError(e.message); setStatus(""); }
}

async function readJsonFile(input) {
  const file = input.files && input.files[0];
  if (!file) return null;
  try { return JSON.parse(await file.text()); } catch (e) {
    throw new Error(`${file.name}: not valid JSON (${e.message})`);
  }
}

async function loadOwnPosition() {
  showError("");
  try {
    const position = await readJsonFile($("position-input"));
    if (!position) return;
    const layout = await api("/api/hex/map", { position });
    useLayout(position, layout, Boolean(state.rulesData && state.rulesData.illustrative));
    await showIllustrative();  // also when it names the shipped (illustrative) rules data
    setStatus("Your position: loaded.");
  } catch (e) { showError(e.message); }
}

async function loadOwnRules() {
  showError("");
  try {
    state.rulesData = await readJsonFile($("rules-input"));
    $("rules-name").textContent = state.rulesData ? "loaded: sent with every ruling" : "";
    if (state.position) await showIllustrative();
    if (state.ruling) await ask();
  } catch (e) { showError(e.message); }
}

// ---- controls -----------------------------------------------------------------------------

function buildModes() {
  const box = $("modes");
  box.replaceChildren();
  for (const kind of Object.keys(state.ruleset.kinds)) {
    if (!MODES[kind]) continue;
    // Toggle buttons, one pressed (aria-pressed): the questions change the whole board, not
    // a panel of their own, so they are not the ARIA tabs pattern (whose users expect the
    // arrow keys and a tabpanel).
    box.append(el("button", { type: "button", "aria-pressed": "false", "data-testid": `mode-${kind}`,
      id: `mode-${kind}`, text: MODES[kind].label, onclick: () => setMode(kind) }));
  }
}

function buildUnitList() {
  const box = $("unit-list");
  box.replaceChildren();
  for (const u of state.layout.units) {
    const b = el("button", { type: "button", "data-testid": `hex-unit-${u.id}`, "data-unit": u.id,
      onclick: () => tapUnit(u.id) }, el("span", { class: "swatch", style: `background:${u.colour}` }),
      `${u.name} (${u.hexes.map(labelOf).join("+")})`);
    box.append(b);
  }
}

function buildReadings() {
  const box = $("readings-list");
  box.replaceChildren();
  for (const [name, o] of Object.entries(state.ruleset.options)) {
    const select = el("select", { id: `opt-${name}`, "data-testid": `opt-${name}`,
      onchange: (ev) => { setReading(name, o, ev.target.value); } });
    for (const c of o.choices) {
      select.append(el("option", { value: JSON.stringify(c), text: String(c) + (c === o.default ? " (default)" : "") }));
    }
    select.value = JSON.stringify(state.chosen[name] ?? o.default);
    box.append(el("div", { class: "row" }, el("label", { for: `opt-${name}`,
      text: `${name.replaceAll("_", " ")} (${o.rule})` }), select,
      o.doc ? el("span", { class: "hint", text: o.doc }) : null));
  }
}

function setReading(name, option, value) {
  const v = JSON.parse(value);
  if (v === option.default) delete state.chosen[name]; else state.chosen[name] = v;
  if (state.ruling) ask();
}

function setMode(kind) {
  state.mode = kind;
  state.pick = { attackers: [], assaulters: [], path: [], pistols: [] };
  state.ruling = null;
  for (const b of $("modes").querySelectorAll("button")) {
    b.setAttribute("aria-pressed", String(b.id === `mode-${kind}`));
  }
  $("mode-hint").textContent = MODES[kind].hint;
  $("event-row").hidden = kind !== "reactions";
  $("cup-row").hidden = kind !== "cup";
  $("hex-result").hidden = true;
  refresh();
}

function clearPick() { setMode(state.mode); }

// ---- taps ---------------------------------------------------------------------------------

function tapUnit(id) {
  const p = state.pick;
  const u = unitOf(id);
  if (state.mode === "close_combat") {
    if (!p.defender || unitOf(p.defender).side === u.side) {
      if (p.defender === id) return clearPick();
      p.defender = id; p.attackers = []; p.pistols = [];
    } else {
      p.attackers = p.attackers.includes(id) ? p.attackers.filter((a) => a !== id) : [...p.attackers, id];
      p.pistols = p.pistols.filter((a) => a !== id);
    }
    return ask();
  }
  if (state.mode === "reactions") {
    p.mover = id; p.hex = null;
    if (!NEEDS_HEX.has($("event-kind").value)) return ask();
    return refresh();
  }
  if (state.mode === "assault") {
    if (!p.assaulters.length || unitOf(p.assaulters[0]).side === u.side) {
      p.assaulters = p.assaulters.includes(id) ? p.assaulters.filter((a) => a !== id) : [...p.assaulters, id];
      p.target = null; state.ruling = null; $("hex-result").hidden = true;
      return refresh();
    }
    p.target = id;
    return ask();
  }
  if (state.mode === "rally") { p.unit = id; p.path = []; return ask(); }
  return undefined;
}

function tapHex(h) {
  const p = state.pick;
  if (state.mode === "reactions" && p.mover && NEEDS_HEX.has($("event-kind").value)) {
    p.hex = h; return ask();
  }
  if (state.mode === "assault" && p.assaulters.length) {
    const there = unitAt(h);
    if (there) return tapUnit(there.id);
    p.target = h; return ask();
  }
  if (state.mode === "rally" && p.unit) { p.path = [...p.path, h]; return ask(); }
  if (unitAt(h)) return tapUnit(unitAt(h).id);
  return undefined;
}

function request() {
  const p = state.pick;
  const body = { position: state.position, ...state.chosen };
  if (state.rulesData) body.rules_data = state.rulesData;
  switch (state.mode) {
    case "close_combat":
      if (!p.defender) return null;
      body.defender = p.defender;
      if (p.attackers.length) body.attackers = p.attackers;
      if (p.pistols.length) body.pistols = p.pistols;
      return body;
    case "reactions": {
      if (!p.mover) return null;
      const kind = $("event-kind").value;
      if (NEEDS_HEX.has(kind) && !p.hex) return null;
      body.event = { kind, unit: p.mover, ...(NEEDS_HEX.has(kind) ? { hex: p.hex } : {}) };
      return body;
    }
    case "assault":
      if (!p.assaulters.length || !p.target) return null;
      body.assault = p.assaulters;
      body.target = [typeof p.target === "string" ? p.target : hexText(p.target)];
      return body;
    case "rally":
      if (!p.unit) return null;
      body.unit = p.unit;
      if (p.path.length) body.path = p.path.map(hexText);
      return body;
    case "cup":
      body.seed = Math.max(0, Math.floor(Number($("cup-seed").value) || 0));
      return body;
    default:
      return null;
  }
}

async function ask() {
  const body = request();
  refresh();
  if (!body) return;
  const seq = ++state.seq;
  showError("");
  setStatus("Asking the umpire…");
  try {
    const r = await api(`/api/hex/${MODES[state.mode].route}`, body);
    if (seq !== state.seq) return;
    state.ruling = r;
    const options = Object.fromEntries(Object.entries(state.ruleset.options)
      .filter(([, o]) => o.decision).map(([name, o]) => [o.decision, { name, ...o }]));
    showRuling($("hex-result"), r, { names: names(), options, chosen: state.chosen });
    setStatus("");
    refresh();
  } catch (e) {
    if (seq !== state.seq) return;
    state.ruling = null;
    $("hex-result").hidden = true;
    showError(e.message);
    setStatus("");
    refresh();
  }
}

// ---- what the picture and the words say about the current pick -----------------------------

function selectionText() {
  const p = state.pick;
  const list = (ids) => ids.map(nameOf).join(", ");
  switch (state.mode) {
    case "close_combat":
      if (!p.defender) return "Tap the defender.";
      return `Defender: ${nameOf(p.defender)} · attackers: ${p.attackers.length ? list(p.attackers)
        : (state.ruling && state.ruling.attackers ? `${list(state.ruling.attackers)} (every enemy with it in front)` : "every enemy with it in front")}`;
    case "reactions":
      if (!p.mover) return "Tap the unit that moves.";
      return `${nameOf(p.mover)} ${$("event-kind").selectedOptions[0].text}` + (p.hex ? ` ${labelOf(p.hex)}` : NEEDS_HEX.has($("event-kind").value) ? ": now tap the hex." : "");
    case "assault":
      if (!p.assaulters.length) return "Tap the assaulting units.";
      return `Assault by ${list(p.assaulters)}` + (p.target ? ` on ${typeof p.target === "string" ? nameOf(p.target) : `hex ${labelOf(p.target)}`}` : ": now tap the target.");
    case "rally":
      return p.unit ? `Rally: ${nameOf(p.unit)}` + (p.path.length ? ` by ${p.path.map(labelOf).join(" ")}` : " (the route it must take)") : "Tap the unit that rallies.";
    default:
      return "";
  }
}

function marks() {
  const p = state.pick;
  const r = state.ruling || {};
  const roles = {};
  const hexes = {};
  let route = [];
  if (state.mode === "close_combat") {
    for (const a of (p.attackers.length ? p.attackers : r.attackers || [])) roles[a] = "attacker";
    if (p.defender) roles[p.defender] = "defender";
    for (const it of r.items || []) for (const h of it.hexes || []) hexes[hexKey(h)] = "flank";
  } else if (state.mode === "reactions") {
    for (const c of r.candidates || []) roles[c.unit] = c.eligible.length ? "may-react" : "may-not";
    if (p.mover) roles[p.mover] = "mover";
    if (p.hex) hexes[hexKey(p.hex)] = "event";
  } else if (state.mode === "assault") {
    for (const a of p.assaulters) roles[a] = "attacker";
    if (typeof p.target === "string") roles[p.target] = "defender";
    else if (p.target) hexes[hexKey(p.target)] = "event";
  } else if (state.mode === "rally" && p.unit) {
    roles[p.unit] = "mover";
    const start = unitOf(p.unit).hexes[0];
    route = [start, ...(p.path.length ? p.path : r.move || [])];
    if (r.end_hex) hexes[hexKey(r.end_hex)] = "event";
  }
  return { roles, hexes, route };
}

// Close combat: a tick box for each attacking cavalry unit whose pistol is loaded (11.3.9).
function pistolChoices() {
  const box = $("pistol-list");
  box.replaceChildren();
  const r = state.ruling || {};
  const attackers = state.mode === "close_combat" ? (state.pick.attackers.length
    ? state.pick.attackers : r.attackers || []) : [];
  const loaded = attackers.filter((id) => {
    const u = (state.position.units || []).find((x) => x.id === id);
    return u && u.state && u.state.pistol === "loaded";
  });
  for (const id of loaded) {
    const tick = el("input", { type: "checkbox", id: `pistol-${id}`, "data-testid": `pistol-${id}`,
      onchange: (ev) => {
        const p = state.pick;
        p.pistols = ev.target.checked ? [...p.pistols, id] : p.pistols.filter((a) => a !== id);
        ask();
      } });
    tick.checked = state.pick.pistols.includes(id);
    box.append(el("label", { for: `pistol-${id}` }, tick, ` ${nameOf(id)} `));
  }
  $("pistol-row").hidden = loaded.length === 0;
}

function refresh() {
  if (!state.layout) return;
  pistolChoices();
  $("selection").textContent = selectionText();
  const m = marks();
  highlight($("hex-map"), state.layout, m);
  for (const b of $("unit-list").querySelectorAll("button")) {
    const role = m.roles[b.dataset.unit];
    if (role) b.setAttribute("data-role", role); else b.removeAttribute("data-role");
  }
}

// ---- start --------------------------------------------------------------------------------

async function start() {
  $("position-input").addEventListener("change", loadOwnPosition);
  $("rules-input").addEventListener("change", loadOwnRules);
  $("clear").addEventListener("click", clearPick);
  $("cup-draw").addEventListener("click", ask);
  $("event-kind").addEventListener("change", () => {
    state.pick.hex = null;
    if (state.pick.mover && !NEEDS_HEX.has($("event-kind").value)) ask(); else refresh();
  });
  try {
    const [kinds, samples] = await Promise.all([api("/api/hex/kinds"), api("/api/hex/samples")]);
    state.kinds = kinds;
    state.samples = samples.samples;
    const box = $("samples");
    for (const s of samples.samples) {
      box.append(el("button", { type: "button", "data-testid": `sample-${s.name}`,
        text: s.title, onclick: () => loadSample(s.name) }));
    }
    setStatus("Pick a sample position, or open your own.");
  } catch (e) { showError(e.message); }
}

start();
