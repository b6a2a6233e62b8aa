// umpire web page: photo + markers -> detected units -> pick a charge -> odds -> dice -> ruling.
// Plain ES module, no build step. Everything the rules decide comes from the server (charges
// and vision); this page only draws the detected trays through the photo's homography so that
// a tap can say which unit was meant.

const $ = (id) => document.getElementById(id);
const MARKERS_KEY = "umpire.markers";
// The overlay's palette (vision/palette.py side_colours, Okabe-Ito): "red" and "blue" by name,
// other sides take the free colours in order, so the picked units look like the ruling's
// picture. Sides are told apart by their exact names, as the rules do: "Red" is not "red"'s
// friend, so it is not drawn in its colour either.
const NAMED_SIDES = { red: "#d55e00", blue: "#0072b2" };
const SIDE_CYCLE = ["#d55e00", "#0072b2", "#009e73", "#e69f00", "#cc79a7", "#56b4e9"];
const CHARGER_STROKE = "#f0e442";
const TARGET_STROKE = "#ffffff";

const state = {
  photo: null,          // Blob of the photo to send
  photoName: "photo.jpg",
  image: null,          // HTMLImageElement of the photo, for the canvas
  markersText: null,
  markersName: "",
  markersKept: false,   // markersText is in localStorage (a detection with it succeeded)
  colours: {},          // side -> the colour it is drawn in (sideColours)
  scene: null,          // scene from /api/detect (with its detection report)
  toCanvas: null,       // 3x3 matrix: table mm -> canvas px
  chargers: [],
  target: null,
  preview: null,        // ruling without dice (the odds)
  detectSeq: 0,
  oddsSeq: 0,
  pickSeq: 0,           // counts changes of the charge picked (units, ruleset)
  rulesets: {},         // name -> GET /api/rulesets entry (title, dice, dice_swiftstride)
  facingRoll: {},       // charger -> a D6 deciding a contested facing (whfb8), when asked
  submitting: false,    // a ruling is on its way to the server
  awaitingFacing: null, // the charger whose contested facing waits for its D6, while asked
  resultFrom: null,     // what the ruling shown is: "ruled" (on this page) or "review" (opened)
  historyBefore: null,
};

// ---- small helpers ----------------------------------------------------------------------

function setStatus(text) { $("status").textContent = text || ""; }

function showError(text) {
  const el = $("error");
  el.textContent = text || "";
  el.hidden = !text;
}

// What the settle view asks for next, in words (after a review is left, a marker set forgotten).
function settleStatus() {
  if (!state.photo && !state.markersText) return "Choose a photo of the table and the marker set.";
  if (!state.photo) return "Choose a photo of the table.";
  if (!state.markersText) return "Choose the marker set (markers.json).";
  if (!state.scene) return "";
  if (state.awaitingFacing) return `Roll a D6 for the facing of ${poss(state.awaitingFacing)} charge.`;
  if (state.chargers.length && state.target) return "Enter the dice, or let the page roll them.";
  return "Tap a charger, then its target.";
}

// A refusal the server gave without its JSON body (a proxy in front of it, a server gone), in
// words: the browser's own "Failed to fetch" or a bare "502 Bad Gateway" tells a player nothing.
function notAnswered(res) {
  const what = `${res.status}${res.statusText ? " " + res.statusText : ""}`;
  return res.status >= 500
    ? `The server did not answer the request (${what}): is umpire still running? Try again.`
    : `The request was refused before it reached umpire (${what}).`;
}

// What each request's answer is, for a message when it is not that.
function answerNoun(path) {
  if (path.startsWith("/api/rulings")) return "a ruling";
  if (path.startsWith("/api/detect")) return "the units found on the photo";
  if (path.startsWith("/api/reviews")) return "a review";
  if (path.startsWith("/api/rulesets")) return "the list of rulesets";
  return "umpire's";
}

// A 2xx answer that is not umpire's JSON: a Wi-Fi login page ("captive portal") or a proxy
// answered in the server's place. Said in words, not as the script's "Cannot read properties
// of null" (an outside tester's finding).
function notJson(path, res, type) {
  const what = `${res.status}${res.statusText ? " " + res.statusText : ""}, ${type || "no content type"}`;
  return `The server's answer was not ${answerNoun(path)} (not JSON: ${what}): something ` +
    "between this device and umpire answered instead, such as a Wi-Fi login page or a proxy. " +
    "Log in to the network (open any web site), or check the address of the umpire server, " +
    "then try again.";
}

async function api(path, options = {}) {
  let res;
  try {
    res = await fetch(path, options);
  } catch (e) {
    const err = new Error("Could not reach the umpire server (network error): check that it is " +
      "still running and that this device is on its network, then try again.");
    err.status = 0;
    throw err;
  }
  let body = null;
  const type = res.headers.get("content-type") || "";
  if (type.includes("application/json")) body = await res.json().catch(() => null);
  if (!res.ok) {
    const detail = body && body.detail ? body.detail : notAnswered(res);
    const err = new Error(detail);
    err.status = res.status;
    err.field = body && typeof body.field === "string" ? body.field : null;
    throw err;
  }
  if (body === null || typeof body !== "object") {
    const err = new Error(notJson(path, res, type));
    err.status = res.status;
    throw err;
  }
  return body;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// "knights'" and "ogre's": a unit id as the owner in a sentence.
const poss = (name) => (String(name).endsWith("s") ? `${name}'` : `${name}'s`);
const fmt = (v, digits = 2) => (typeof v === "number" && isFinite(v) ? v.toFixed(digits) : "–");
// A charge's distance in inches as the explanation says it: from distance_mm, not from
// distance_in, which is already rounded to 3 places (10.165 would show as 10.16 beside the
// explanation's 10.17 in).
const inches = (c) => (typeof c.distance_mm === "number" && isFinite(c.distance_mm)
  ? c.distance_mm / 25.4 : c.distance_in);
// A chance for players: one decimal, more where needed so that it never shows 100% or 0%
// unless it is exact (charges.format_chance does the same).
const pct = (p) => {
  if (typeof p !== "number" || !isFinite(p)) return "–";
  if (p >= 1) return "100%";
  if (p <= 0) return "0%";
  for (let d = 1; d < 10; d++) {
    const t = (100 * p).toFixed(d);
    if (Number(t) > 0 && Number(t) < 100) return `${t}%`;
  }
  return `${100 * p}%`;
};
const words = (s) => String(s || "").replaceAll("_", " ");

// ---- matrices (3x3, row-major arrays of arrays) ------------------------------------------

function matMul(a, b) {
  return a.map((row) => [0, 1, 2].map((j) => row[0] * b[0][j] + row[1] * b[1][j] + row[2] * b[2][j]));
}

function project(m, x, y) {
  const w = m[2][0] * x + m[2][1] * y + m[2][2];
  return [(m[0][0] * x + m[0][1] * y + m[0][2]) / w, (m[1][0] * x + m[1][1] * y + m[1][2]) / w];
}

function homographyOf(scene) {
  const det = scene && scene.detection;
  if (!det) return null;
  for (const key of ["table_to_image", "homography"]) {
    const h = det[key];
    if (Array.isArray(h) && h.length === 3 && h.every((r) => Array.isArray(r) && r.length === 3)) return h;
  }
  return null;
}

// The unit boundary corners in table mm (DESIGN.md: files x base width by ranks x base depth,
// centred on x, y, front rank looking along `facing`), for drawing and tap-testing only.
function unitOutline(u) {
  const t = (u.facing * Math.PI) / 180;
  const f = [Math.cos(t), Math.sin(t)];
  const r = [Math.sin(t), -Math.cos(t)];
  const hw = (u.files * u.base[0]) / 2;
  const hd = (u.ranks * u.base[1]) / 2;
  const at = (a, b) => [u.x + r[0] * a + f[0] * b, u.y + r[1] * a + f[1] * b];
  return { corners: [at(-hw, hd), at(hw, hd), at(hw, -hd), at(-hw, -hd)], front: [at(-hw, hd), at(hw, hd)] };
}

function insidePolygon(p, poly) {
  let inside = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i];
    const [xj, yj] = poly[j];
    if ((yi > p[1]) !== (yj > p[1]) && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

// ---- photo and markers ------------------------------------------------------------------

function loadImage(blob) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error("photo: the browser cannot show this file as an image"));
    img.src = URL.createObjectURL(blob);
  });
}

async function usePhoto(blob, name) {
  showError("");
  state.photo = blob;
  state.photoName = name || "photo.jpg";
  state.image = null;
  try {
    state.image = await loadImage(blob);
  } catch (e) {
    // The server decides whether it is an image; the page just cannot preview it.
  }
  await detect();
}

// The marker set chosen is used at once, but kept in the browser (localStorage) only once a
// detection with it has succeeded: one the server refused is never remembered, so a reload does
// not bring it back to be refused again (an outside tester's finding).
function useMarkers(text, name) {
  state.markersText = text;
  state.markersName = name;
  state.markersKept = false;
  showMarkersName();
}

function keepMarkers() {
  if (state.markersKept || !state.markersText) return;
  const saved = { text: state.markersText, name: state.markersName };
  try { localStorage.setItem(MARKERS_KEY, JSON.stringify(saved)); } catch (e) { /* private mode */ }
  state.markersKept = true;
  showMarkersName();
}

// The server refused the marker set itself (not the photo): it goes, remembered or not.
function dropRefusedMarkers() {
  try {
    const saved = JSON.parse(localStorage.getItem(MARKERS_KEY) || "null");
    if (saved && saved.text === state.markersText) localStorage.removeItem(MARKERS_KEY);
  } catch (e) { /* private mode */ }
  state.markersText = null;
  state.markersName = "";
  state.markersKept = false;
  $("markers-input").value = "";
  showMarkersName();
}

const refusesMarkers = (e) => e.status === 422 && (e.field === "markers" || /^markers\b/.test(e.message));

function showMarkersName() {
  $("markers-name").textContent = state.markersText
    ? `using ${state.markersName}${state.markersKept ? " (remembered)" : ""}` : "";
  $("markers-forget").hidden = !state.markersText;
}

async function useMarkersFile(file) {
  showError("");
  const text = await file.text();
  try {
    JSON.parse(text);
  } catch (e) {
    showError(`markers: ${file.name} is not valid JSON (${e.message})`);
    return;
  }
  useMarkers(text, file.name);
  await detect();
}

function forgetMarkers() {
  // Nothing may still look chosen: the file box is emptied, and the units found with that
  // marker set go with it (a ruling needs the marker set, so they could not be ruled).
  try { localStorage.removeItem(MARKERS_KEY); } catch (e) { /* private mode */ }
  state.markersText = null;
  state.markersName = "";
  state.markersKept = false;
  $("markers-input").value = "";
  state.detectSeq++;  // an answer still on its way is for the forgotten set
  state.scene = null;
  resetPick();
  $("pick").hidden = true;
  clearResult();
  showError("");
  showMarkersName();
  setStatus("Marker set forgotten. Choose the marker set (markers.json)" +
    (state.photo ? " to find the units on the photo again." : "."));
  $("markers-input").focus();
}

function restoreMarkers() {
  try {
    const saved = JSON.parse(localStorage.getItem(MARKERS_KEY) || "null");
    if (saved && typeof saved.text === "string") {
      state.markersText = saved.text;
      state.markersName = saved.name || "markers.json";
      state.markersKept = true;
    }
  } catch (e) { /* nothing remembered */ }
  showMarkersName();
}

// ---- webcam -----------------------------------------------------------------------------

let stream = null;

async function startWebcam() {
  showError("");
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    showError("This browser gives no camera access here (it needs https or localhost).");
    return;
  }
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      video: { facingMode: "environment", width: { ideal: 1920 }, height: { ideal: 1080 } },
    });
  } catch (e) {
    showError(`webcam: ${e.message || e.name}`);
    return;
  }
  $("webcam-video").srcObject = stream;
  $("webcam").hidden = false;
}

function stopWebcam() {
  if (stream) stream.getTracks().forEach((t) => t.stop());
  stream = null;
  $("webcam").hidden = true;
}

async function captureWebcam() {
  const video = $("webcam-video");
  if (!video.videoWidth) return;
  const c = document.createElement("canvas");
  c.width = video.videoWidth;
  c.height = video.videoHeight;
  c.getContext("2d").drawImage(video, 0, 0);
  const blob = await new Promise((r) => c.toBlob(r, "image/jpeg", 0.92));
  stopWebcam();
  await usePhoto(blob, "webcam.jpg");
}

// ---- detection and the canvas -----------------------------------------------------------

function resetPick() {
  state.pickSeq++;
  state.chargers = [];
  state.target = null;
  state.preview = null;
  state.facingRoll = {};
  state.awaitingFacing = null;
  $("odds").hidden = true;
  syncRuleButtons();
}

async function detect() {
  if (!state.photo || !state.markersText) {
    setStatus(!state.photo ? "Choose a photo of the table." : "Choose the marker set (markers.json).");
    return;
  }
  const seq = ++state.detectSeq;
  setStatus("Finding the table and the units…");
  const form = new FormData();
  form.append("photo", state.photo, state.photoName);
  // As a file, not a text field: a form field is limited to 1 MB, a file is not.
  form.append("markers", new Blob([state.markersText], { type: "application/json" }), "markers.json");
  try {
    const scene = await api("/api/detect", { method: "POST", body: form });
    if (seq !== state.detectSeq) return;
    keepMarkers();
    state.scene = scene;
    resetPick();
    clearResult();
    $("pick").hidden = false; // shown first: tap positions need the canvas's laid-out size
    setupCanvas();
    render();
    setStatus(`${foundText(scene)} Tap a charger, then its target.`);
  } catch (e) {
    if (seq !== state.detectSeq) return;
    if (refusesMarkers(e)) {
      const name = state.markersName;
      dropRefusedMarkers();
      setStatus(`The server refused ${name} as the marker set: choose another marker set ` +
        "(markers.json).");
    } else {
      setStatus("");
    }
    showError(e.message);
  }
}

// "4 units found; not found on the photo: chariot, archers." and the detection report's
// warnings listed under it (a unit whose marker was not seen, a marker set's unknown field):
// a unit the players want to charge must not just be missing from the picture.
function foundText(scene) {
  const det = scene.detection || {};
  const n = scene.units.length;
  const missing = Array.isArray(det.missing_units) ? det.missing_units : [];
  showWarnings("detect-warnings", det.warnings);
  const found = `${n} unit${n === 1 ? "" : "s"} found`;
  if (!missing.length) return `${found}.`;
  return `${found}; not found on the photo: ${missing.join(", ")}.`;
}

// A list of plain sentences (a ruling's or a detection's warnings) in the list ``id``; hidden
// when there are none.
function showWarnings(id, warnings) {
  const list = $(id);
  const items = Array.isArray(warnings) ? warnings.filter((w) => typeof w === "string") : [];
  list.replaceChildren(...items.map((w) => el("li", { text: w })));
  list.hidden = !items.length;
}

function setupCanvas() {
  const canvas = $("table-canvas");
  const h = homographyOf(state.scene);
  if (h && state.image) {
    // On the photo: scale the photo to at most 1600 px wide, then the homography on top.
    const k = Math.min(1, 1600 / state.image.naturalWidth);
    canvas.width = Math.round(state.image.naturalWidth * k);
    canvas.height = Math.round(state.image.naturalHeight * k);
    state.toCanvas = matMul([[k, 0, 0], [0, k, 0], [0, 0, 1]], h);
    state.planMode = false;
  } else {
    // A top-down plan: the table frame has y up, the canvas y down.
    const t = state.scene.table || { width_mm: 1828.8, depth_mm: 1219.2 };
    const s = 960 / t.width_mm;
    canvas.width = 960;
    canvas.height = Math.round(t.depth_mm * s);
    state.toCanvas = [[s, 0, 0], [0, -s, t.depth_mm * s], [0, 0, 1]];
    state.planMode = true;
  }
  canvas.setAttribute("aria-label", state.planMode
    ? "Top-down plan of the table with the detected units"
    : "The photo with the detected units drawn on it");
}

function sideColours() {
  const colours = {};
  const sides = [...new Set(state.scene.units.map((u) => u.side))];
  for (const s of sides) if (Object.hasOwn(NAMED_SIDES, s)) colours[s] = NAMED_SIDES[s];
  const free = SIDE_CYCLE.filter((c) => !Object.values(colours).includes(c));
  let i = 0;
  for (const s of sides) if (!(s in colours)) colours[s] = free[i++ % free.length] || "#999999";
  return colours;
}

function render() {
  const canvas = $("table-canvas");
  state.colours = sideColours();
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!state.planMode && state.image) {
    ctx.drawImage(state.image, 0, 0, canvas.width, canvas.height);
  } else {
    ctx.fillStyle = "#8a9a6b";
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    for (const t of state.scene.terrain || []) {
      const pts = t.polygon.map(([x, y]) => project(state.toCanvas, x, y));
      ctx.beginPath();
      pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
      ctx.closePath();
      ctx.fillStyle = t.impassable === false ? "rgba(40,90,40,.6)" : "rgba(90,80,70,.8)";
      ctx.fill();
    }
  }
  const colours = state.colours;
  const lw = Math.max(2, canvas.width / 400);
  ctx.font = `600 ${Math.round(Math.max(12, canvas.width / 70))}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  state.outlines = {};
  for (const u of state.scene.units) {
    const o = unitOutline(u);
    const pts = o.corners.map(([x, y]) => project(state.toCanvas, x, y));
    const front = o.front.map(([x, y]) => project(state.toCanvas, x, y));
    state.outlines[u.id] = pts;
    const role = state.chargers.includes(u.id) ? "charger" : state.target === u.id ? "target" : null;
    ctx.beginPath();
    pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
    ctx.fillStyle = colours[u.side] + (role ? "88" : "44");
    ctx.fill();
    ctx.lineWidth = role ? lw * 2.2 : lw;
    ctx.strokeStyle = role === "charger" ? CHARGER_STROKE : role === "target" ? TARGET_STROKE : colours[u.side];
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(...front[0]);
    ctx.lineTo(...front[1]);
    ctx.lineWidth = lw * 2.5;
    ctx.strokeStyle = "#ffffff";
    ctx.stroke();
    const [cx, cy] = project(state.toCanvas, u.x, u.y);
    ctx.lineWidth = 4;
    ctx.strokeStyle = "rgba(0,0,0,.75)";
    ctx.strokeText(u.id, cx, cy);
    ctx.fillStyle = "#fff";
    ctx.fillText(u.id, cx, cy);
  }
  renderUnitList();
}

function renderUnitList() {
  // The buttons are updated in place when the units are the same ones (a pick, a resize): a
  // button pressed with Space or Enter keeps the keyboard focus, and the next Tab goes on from
  // it. A new scene rebuilds them; a unit button that had the focus gives it to its new copy.
  const list = $("unit-list");
  const canvas = $("table-canvas");
  const k = canvas.clientWidth / canvas.width || 1;
  const ids = state.scene.units.map((u) => u.id);
  const old = [...list.children];
  const same = old.length === ids.length && old.every((b, i) => b.dataset.unit === ids[i]);
  const focused = list.contains(document.activeElement) ? document.activeElement.dataset.unit : null;
  if (!same) list.replaceChildren();
  state.scene.units.forEach((u, i) => {
    const role = state.chargers.includes(u.id) ? "charger" : state.target === u.id ? "target" : "";
    const [cx, cy] = project(state.toCanvas, u.x, u.y);
    const b = same ? old[i] : el("button", {
      type: "button", "data-testid": `unit-${u.id}`, "data-unit": u.id, text: `${u.id} · ${u.side}`,
      onclick: (ev) => pick(u.id, ev.shiftKey || $("multi-charger").checked),
    });
    b.setAttribute("data-role", role);
    b.setAttribute("data-colour", state.colours[u.side]);  // as drawn on the canvas
    // Where the unit's centre is on the canvas, in CSS pixels: lets a test tap the picture.
    b.setAttribute("data-cx", (cx * k).toFixed(1));
    b.setAttribute("data-cy", (cy * k).toFixed(1));
    b.setAttribute("aria-pressed", role ? "true" : "false");
    b.setAttribute("aria-label", `${u.id} (${u.side})${role ? `, ${role}` : ""}`);
    if (!same) list.append(b);
  });
  if (!same && focused) {
    const again = [...list.children].find((b) => b.dataset.unit === focused);
    if (again) again.focus();
  }
  describeSelection();
}

function describeSelection() {
  const s = state.chargers.length
    ? `${state.chargers.join(" + ")} → ${state.target || "pick the target"}`
    : "Pick a charger.";
  $("selection").textContent = s;
}

function unitAt(canvasX, canvasY) {
  let hit = null;
  for (const [id, pts] of Object.entries(state.outlines || {})) {
    if (insidePolygon([canvasX, canvasY], pts)) hit = id;
  }
  if (hit) return hit;
  // A tap just beside a small tray still counts: the nearest centre within 4% of the width.
  let best = null;
  let bestD = $("table-canvas").width * 0.04;
  for (const u of state.scene.units) {
    const [cx, cy] = project(state.toCanvas, u.x, u.y);
    const d = Math.hypot(cx - canvasX, cy - canvasY);
    if (d < bestD) { best = u.id; bestD = d; }
  }
  return best;
}

function onCanvasClick(ev) {
  if (!state.scene) return;
  const canvas = $("table-canvas");
  const rect = canvas.getBoundingClientRect();
  const x = ((ev.clientX - rect.left) * canvas.width) / rect.width;
  const y = ((ev.clientY - rect.top) * canvas.height) / rect.height;
  const id = unitAt(x, y);
  if (id) pick(id, ev.shiftKey || $("multi-charger").checked);
}

function pick(id, additive) {
  state.pickSeq++;
  showError("");
  state.facingRoll = {};
  state.awaitingFacing = null;
  syncRuleButtons();
  // A ruling on screen is for the charges picked before: it would no longer match them.
  if (state.resultFrom) clearResult();
  if (additive && state.chargers.length) {
    if (state.chargers.includes(id)) state.chargers = state.chargers.filter((c) => c !== id);
    else if (state.target === id) state.target = null;
    else state.chargers.push(id);
  } else if (!state.chargers.length || state.target) {
    state.chargers = [id];
    state.target = null;
  } else if (state.chargers.includes(id)) {
    state.chargers = state.chargers.filter((c) => c !== id);
  } else {
    state.target = id;
  }
  render();
  if (state.chargers.length && state.target) previewOdds();
  else $("odds").hidden = true;
}

// ---- odds (a ruling without dice) and dice ----------------------------------------------

function rulesScene() {
  const { detection, ...scene } = state.scene;
  return scene;
}

function declared() {
  return state.chargers.map((c) => ({ charger: c, target: state.target }));
}

async function previewOdds() {
  const seq = ++state.oddsSeq;
  setStatus("Working out the odds…");
  try {
    const ruling = await api("/api/rulings", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(rulingRequest()),
    });
    if (seq !== state.oddsSeq) return;
    state.preview = ruling;
    state.awaitingFacing = null;
    renderOdds(ruling);
    showWarnings("odds-warnings", ruling.warnings);
    syncRuleButtons();
    // A review opened meanwhile keeps its own status line.
    if (!$("view-settle").hidden) setStatus("Enter the dice, or let the page roll them.");
  } catch (e) {
    if (seq !== state.oddsSeq) return;
    const shown = !$("view-settle").hidden;
    if (shown) setStatus("");
    if (askedFacingRoll(e.message)) return;
    state.awaitingFacing = null;
    syncRuleButtons();
    if (shown) showError(e.message);
    $("odds").hidden = true;
  }
}

// The server asks for a contested facing's D6 by its field name (whfb8: "facing_roll.<charger>:
// ..."): the page asks the players for it instead of showing the field. True when it did.
function askedFacingRoll(message) {
  const asked = /^facing_roll\.([^:]+):/.exec(message || "");
  if (!asked || !state.chargers.includes(asked[1])) return false;
  askFacingRoll(asked[1], message);
  return true;
}

// "Rule the charge" only while the dice can be ruled: not while a facing roll is asked for.
function syncRuleButtons() {
  const waiting = Boolean(state.awaitingFacing);
  $("rule-button").disabled = waiting || state.submitting;
  $("rule-button").title = waiting ? "First roll the D6 for the contested facing (above)." : "";
  $("roll-dice").textContent = waiting ? "Roll the facing D6 for me" : "Roll for me";
  $("dice-hint").hidden = waiting;
}

function rulingRequest() {
  const req = { ruleset: $("ruleset-select").value, scene: rulesScene(), charges: declared() };
  if (Object.keys(state.facingRoll).length) req.facing_roll = state.facingRoll;
  return req;
}

// The server's question in a player's words: "the facing of knights' charge on spears is
// contested (front-rank models: right 2, rear 2): give a D6 as facing_roll (1-3 the earlier arc
// of front, flank, rear; 4-6 the later)" becomes which facing a low and a high roll give.
const ARC_ORDER = { front: 0, left: 1, right: 1, flank: 1, rear: 2 };
const ARC_NAME = { left: "left flank", right: "right flank" };
function facingQuestion(charger, message) {
  const target = state.target || "the target";
  const split = /front-rank models: ([^)]*)\)/.exec(message || "");
  const counts = split ? split[1].split(",").map((x) => x.trim().split(/\s+/))
    .filter(([arc, n]) => arc in ARC_ORDER && Number(n) > 0) : [];
  const arcs = counts.map(([arc, n]) => ({ arc, n: Number(n), name: ARC_NAME[arc] || arc }))
    .sort((a, b) => ARC_ORDER[a.arc] - ARC_ORDER[b.arc]);
  const who = `The facing of ${target} that ${charger} charges is too close to call`;
  if (arcs.length === 2 && ARC_ORDER[arcs[0].arc] < ARC_ORDER[arcs[1].arc]) {
    const [a, b] = arcs;
    return `${who}: of ${poss(charger)} front-rank models, ${a.n} are in ${poss(target)} ${a.name} arc ` +
      `and ${b.n} in its ${b.name} arc. Roll a D6: 1 to 3, the charge hits the ${a.name}; ` +
      `4 to 6, the ${b.name}. Then roll the charge.`;
  }
  return `${who}. Roll a D6: 1 to 3, the charge hits the first of the contested facings in ` +
    "the order front, flank, rear; 4 to 6, the later one. Then roll the charge.";
}

function askFacingRoll(charger, why) {
  // The ruleset decides a contested facing by a D6 the players roll (whfb8): the server asks
  // for it by name; the page asks the players, in words, and rules nothing until it has it.
  state.awaitingFacing = charger;
  const list = $("odds-list");
  $("dice-inputs").replaceChildren();
  const input = el("input", {
    type: "number", min: "1", max: "6", id: "facing-roll", "data-testid": "facing-roll",
    inputmode: "numeric", "aria-describedby": "facing-question",
  });
  const go = el("button", { type: "button", text: "Use this roll", id: "facing-roll-go",
    "data-testid": "facing-roll-go" });
  const use = () => {
    const v = Number(input.value);
    if (!(v >= 1 && v <= 6 && Number.isInteger(v))) { showError("The facing roll is one D6: a number from 1 to 6."); return; }
    showError("");
    state.facingRoll[charger] = v;
    previewOdds();
  };
  go.addEventListener("click", use);
  input.addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); use(); } });
  list.replaceChildren(el("div", { class: "card facing-ask", "data-testid": "facing-ask" },
    el("p", { id: "facing-question", "data-testid": "facing-question", text: facingQuestion(charger, why) }),
    el("div", { class: "row" },
      el("label", { for: "facing-roll", text: `Facing roll for ${charger} (one D6)` }), input, go)));
  $("odds").hidden = false;
  syncRuleButtons();
  if (!$("view-settle").hidden) setStatus(settleStatus());
}

function rollFacing() {
  const input = $("facing-roll");
  if (!input) return;
  const r = new Uint32Array(1);
  crypto.getRandomValues(r);
  input.value = String(1 + (r[0] % 6));
  $("facing-roll-go").click();
}

function diceCount(charge) {
  // How many dice the roll takes, from the ruleset the server describes (GET /api/rulesets):
  // its roll, or its Swiftstride roll for a unit with Swiftstride.
  const rs = state.rulesets[$("ruleset-select").value];
  const u = state.scene.units.find((x) => x.id === charge.charger);
  const roll = rs && (u && u.swiftstride ? rs.dice_swiftstride : rs.dice);
  if (roll && roll.dice) return roll.dice;
  return u && u.swiftstride ? 3 : 2;
}

function renderOdds(ruling) {
  const list = $("odds-list");
  list.replaceChildren();
  const inputs = $("dice-inputs");
  inputs.replaceChildren();
  for (const c of ruling.charges) {
    const ok = c.declarable !== false;
    const card = el("div", { class: `odds-card${ok ? "" : " no"}`, "data-testid": `odds-${c.charger}` });
    card.append(el("div", { class: "big", text: ok ? pct(c.odds) : "cannot be declared" }));
    card.append(el("div", {
      text: `${c.charger} → ${c.target}: ${c.facing || "?"} facing` +
        // Only where the ruleset rolled for the facing: another decides a tie its own way.
        (c.facing_contested && state.facingRoll[c.charger]
          ? ` (facing roll ${state.facingRoll[c.charger]})` : "") +
        `, ${fmt(inches(c))}" away` +
        (ok && c.needed_in != null ? `, needs ${c.needed_in} on the dice` : ""),
    }));
    if (!ok && c.reasons && c.reasons.length) card.append(el("div", { text: c.reasons.join(" ") }));
    list.append(card);
    // No roll is made for a charge that cannot be declared (RULES.md 2): no box for it.
    if (!ok) continue;
    const n = diceCount(c);
    const id = `dice-${c.charger}`;
    inputs.append(el("div", { class: "row" },
      el("label", { for: id, text: `${c.charger}: ${c.dice_rule || `${n}D6`}` }),
      el("input", {
        type: "text", id, "data-testid": id, "data-charger": c.charger, "data-count": n,
        inputmode: "numeric", autocomplete: "off",
        placeholder: ["e.g. 4", "e.g. 3 5", "e.g. 2 5 4"][Math.min(n, 3) - 1] || "e.g. 3 5",
        "aria-label": `Dice rolled for ${c.charger}, ${n} numbers from 1 to 6`,
        "aria-describedby": "dice-hint",
      })));
  }
  $("odds").hidden = false;
}

function rollDice() {
  if (state.awaitingFacing) { rollFacing(); return; }
  for (const input of $("dice-inputs").querySelectorAll("input[data-charger]")) {
    const n = Number(input.dataset.count) || 2;
    const r = new Uint32Array(n);
    crypto.getRandomValues(r);
    input.value = Array.from(r, (v) => 1 + (v % 6)).join(" ");
  }
}

function readDice() {
  const dice = {};
  let any = false;
  for (const input of $("dice-inputs").querySelectorAll("input[data-charger]")) {
    const text = input.value.trim();
    if (!text) continue;
    // A phone's number pad (inputmode=numeric) has no space: "352" is one die per digit, when
    // every character is a digit from 1 to 6; else numbers separated by spaces or commas.
    const values = /^[1-6]+$/.test(text) ? [...text].map(Number)
      : text.split(/[\s,;+]+/).filter(Boolean).map(Number);
    if (values.some((v) => !Number.isInteger(v) || v < 1 || v > 6)) {
      throw new Error(`dice for ${input.dataset.charger}: numbers from 1 to 6, separated by ` +
        "spaces (3 5 2), or one digit per die (352)");
    }
    dice[input.dataset.charger] = values;
    any = true;
  }
  return any ? dice : null;
}

async function submitRuling(ev) {
  ev.preventDefault();
  if (state.submitting) return;
  showError("");
  if (state.awaitingFacing) {
    showError(`First roll the D6 for the facing of ${poss(state.awaitingFacing)} charge (the box above ` +
      "the dice), then the charge.");
    $("facing-roll").focus();
    return;
  }
  if (!state.photo || !state.markersText || !state.scene) {
    showError(settleStatus() || "Choose a photo and the marker set first.");
    return;
  }
  let dice;
  try {
    dice = readDice();
  } catch (e) {
    showError(e.message);
    return;
  }
  const form = new FormData();
  form.append("photo", state.photo, state.photoName);
  // As a file, not a text field: a form field is limited to 1 MB, a file is not.
  form.append("markers", new Blob([state.markersText], { type: "application/json" }), "markers.json");
  form.append("charges", JSON.stringify(declared()));
  if (dice) form.append("dice", JSON.stringify(dice));
  form.append("ruleset", $("ruleset-select").value);
  if (Object.keys(state.facingRoll).length) form.append("facing_roll", JSON.stringify(state.facingRoll));
  state.submitting = true;
  syncRuleButtons();
  const seq = state.pickSeq;
  setStatus("Ruling the charge…");
  try {
    const review = await api("/api/reviews", { method: "POST", body: form });
    if (seq === state.pickSeq) {
      showReview(review, "ruled");
      setStatus("Ruled and stored in the history.");
    } else {  // the charge picked changed meanwhile: this ruling is not for it
      setStatus("The charge picked changed while it was ruled: that ruling is in the history.");
    }
  } catch (e) {
    setStatus("");
    if (!askedFacingRoll(e.message)) showError(e.message);
  } finally {
    state.submitting = false;
    syncRuleButtons();
  }
}

// ---- a ruling ---------------------------------------------------------------------------

function outcomeText(c) {
  if (c.outcome) return words(c.outcome);
  return c.declarable === false ? "impossible" : "odds only";
}

// Takes the ruling off the screen (leaving a review, or once the charges picked changed).
function clearResult() {
  state.resultFrom = null;
  $("result").hidden = true;
  $("outcome").replaceChildren();
  $("result-charges").replaceChildren();
  $("overlay-img").removeAttribute("src");
  $("photo-link").href = "#";
  $("review-link").href = "#";
}

// Shows a ruling; from says what it is: "ruled" on this page now, or "review" opened.
function showReview(review, from) {
  state.resultFrom = from;
  const ruling = review.ruling;
  const box = $("outcome");
  box.replaceChildren();
  for (const c of ruling.charges) {
    const cls = c.outcome || (c.declarable === false ? "impossible" : "odds-only");
    box.append(el("div", { class: cls, "data-testid": `outcome-${c.charger}`, "data-outcome": c.outcome || "" },
      outcomeText(c),
      el("small", { text: `${c.charger} → ${c.target}` })));
  }
  const img = $("overlay-img");
  img.alt = `The ruling drawn on the ${review.overlay_kind === "plan" ? "table plan" : "photo"}: ` +
    ruling.charges.map((c) => `${c.charger} ${outcomeText(c)}`).join(", ");
  img.src = review.overlay_url;
  $("photo-link").href = review.photo_url;
  $("review-link").href = `#/review/${review.id}`;
  showWarnings("result-warnings", ruling.warnings);
  const details = $("result-charges");
  details.replaceChildren();
  for (const c of ruling.charges) details.append(chargeDetails(c, review.dice));
  $("result").hidden = false;
  $("result").scrollIntoView({ behavior: "smooth", block: "start" });
}

function chargeDetails(c, dice) {
  const wrap = el("article", { "data-testid": `ruling-${c.charger}` });
  wrap.append(el("h4", { text: `${c.charger} charges ${c.target}` }));
  const ol = el("ol", { class: "explanation", "data-testid": "explanation" });
  for (const s of c.explanation || []) ol.append(el("li", { text: s }));
  wrap.append(ol);
  const contact = c.contact || {};
  const rows = [
    ["Outcome", outcomeText(c)],
    ["Declarable", c.declarable === false ? `no: ${(c.reasons || []).join(" ")}` : "yes"],
    ["Facing charged", c.facing || "–"],
    ["Distance", `${fmt(inches(c))}" (${fmt(c.distance_mm, 1)} mm)`],
    ["Dice needed", c.declarable === false ? "–" : (c.needed_in ?? "–")],
    ["Chance before rolling", pct(c.odds)],
    ["Dice rolled", dice && dice[c.charger] ? dice[c.charger].join(", ") : "–"],
    ["Charge range", c.range_in != null ? `${fmt(c.range_in, 1)}"` : "–"],
    ["Margin", c.margin_mm != null ? `${fmt(c.margin_mm, 1)} mm${c.certain === false ? " (uncertain)" : ""}` : "–"],
    ["Models in contact", contact.charger_models != null
      ? `${contact.charger_models} (charger), ${contact.target_models} (target)` : "–"],
    ["Final position", c.final ? `x ${fmt(c.final.x, 1)}, y ${fmt(c.final.y, 1)} mm, facing ${fmt(c.final.facing, 1)}°` : "–"],
  ];
  const table = el("table", { class: "figures", "data-testid": "figures" });
  for (const [k, v] of rows) table.append(el("tr", {}, el("th", { scope: "row", text: k }), el("td", { text: String(v) })));
  wrap.append(table);
  return wrap;
}

// ---- history and routing ----------------------------------------------------------------

async function loadHistory(more = false) {
  showError("");
  const list = $("history-list");
  if (!more) { list.replaceChildren(); state.historyBefore = null; }
  const q = state.historyBefore ? `?limit=24&before=${state.historyBefore}` : "?limit=24";
  try {
    const page = await api(`/api/reviews${q}`);
    if (!more && !page.reviews.length) list.append(el("li", { text: "No reviews stored yet." }));
    for (const r of page.reviews) {
      const summary = r.charges.map((c) => `${c.charger} → ${c.target}: ${words(c.outcome) || "odds only"}`).join("; ");
      list.append(el("li", { "data-testid": "history-item", "data-review": r.id },
        el("a", { href: `#/review/${r.id}`, "aria-label": `Review ${summary}, ${new Date(r.created_at).toLocaleString()}` },
          el("img", { src: r.thumbnail_url, alt: "", loading: "lazy" }),
          el("div", { text: summary }),
          el("div", { class: "when", text: new Date(r.created_at).toLocaleString() }))));
    }
    state.historyBefore = page.next_before;
    $("history-more").hidden = !page.next_before;
  } catch (e) {
    showError(e.message);
  }
}

const reviewRoute = (hash) => (hash.match(/^#\/review\/([\w-]+)$/) || [])[1] || null;

async function openReview(id) {
  showError("");
  setStatus("Loading the review…");
  try {
    const review = await api(`/api/reviews/${encodeURIComponent(id)}`);
    if (reviewRoute(location.hash) !== id) return;  // the review was left meanwhile
    showReview(review, "review");
    setStatus(`Review of ${new Date(review.created_at).toLocaleString()}.`);
  } catch (e) {
    if (reviewRoute(location.hash) !== id) return;
    setStatus("");
    showError(e.message);
  }
}

function route() {
  const hash = location.hash || "#/";
  const reviewId = reviewRoute(hash);
  const review = reviewId ? [hash, reviewId] : null;
  const history = hash === "#/history";
  $("view-settle").hidden = history || !!review;
  $("view-history").hidden = !history;
  $("nav-settle").toggleAttribute("aria-current", !history && !review);
  if (!history && !review) $("nav-settle").setAttribute("aria-current", "page");
  $("nav-history").toggleAttribute("aria-current", history);
  if (history) $("nav-history").setAttribute("aria-current", "page");
  if (history) { clearResult(); showError(""); setStatus(""); loadHistory(); }
  else if (review) { if (state.resultFrom === "ruled") clearResult(); openReview(review[1]); }
  else if (state.resultFrom === "review") {
    // Back to settling: the review's ruling is not the charge on this page.
    clearResult();
    showError("");
    setStatus(settleStatus());
  }
}

// ---- wiring -----------------------------------------------------------------------------

async function loadRulesets() {
  // The server lists the rulesets its engine implements; the built-in options stay if it can't.
  try {
    const { rulesets, default: fallback } = await api("/api/rulesets");
    if (!rulesets.length) return;
    state.rulesets = Object.fromEntries(rulesets.map((r) => [r.name, r]));
    const select = $("ruleset-select");
    const current = select.value;
    select.replaceChildren(...rulesets.map((r) => el("option", { value: r.name, text: `${r.title} (${r.name})` })));
    select.value = rulesets.some((r) => r.name === current) ? current : fallback;
  } catch (e) { /* keep the built-in list */ }
}

function init() {
  restoreMarkers();
  loadRulesets();
  $("photo-input").addEventListener("change", (ev) => {
    const f = ev.target.files[0];
    if (f) usePhoto(f, f.name);
  });
  $("markers-input").addEventListener("change", (ev) => {
    const f = ev.target.files[0];
    if (f) useMarkersFile(f);
  });
  $("markers-forget").addEventListener("click", forgetMarkers);
  $("webcam-start").addEventListener("click", startWebcam);
  $("webcam-stop").addEventListener("click", stopWebcam);
  $("webcam-capture").addEventListener("click", captureWebcam);
  $("table-canvas").addEventListener("click", onCanvasClick);
  $("clear-pick").addEventListener("click", () => {
    resetPick();
    if (state.resultFrom) clearResult();
    if (state.scene) { render(); setStatus(settleStatus()); }
  });
  $("ruleset-select").addEventListener("change", () => {
    // A ruling shown was made by the other ruleset: it no longer answers the charge picked.
    state.pickSeq++;
    // A facing roll answered one ruleset's question (whfb8): another decides a tie its own
    // way, and coming back asks for a roll again.
    state.facingRoll = {};
    state.awaitingFacing = null;
    syncRuleButtons();
    if (state.resultFrom === "ruled") clearResult();
    if (state.chargers.length && state.target) previewOdds();
  });
  $("roll-dice").addEventListener("click", rollDice);
  $("dice-form").addEventListener("submit", submitRuling);
  $("history-more").addEventListener("click", () => loadHistory(true));
  new ResizeObserver(() => { if (state.scene) renderUnitList(); }).observe($("table-canvas"));
  window.addEventListener("hashchange", route);
  route();
  if (!location.hash || location.hash === "#/") setStatus(settleStatus());
}

init();
