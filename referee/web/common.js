// cardref pages: shared helpers (plain JavaScript, no build step). The token comes from ?token= in the URL.
"use strict";
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const SUIT = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

function cardEl(code) {
  if (!code) return el("span", { class: "card hidden" }, "??");
  const red = code[1] === "H" || code[1] === "D";
  const text = code === "BJ" || code === "LJ" ? code : code[0] + SUIT[code[1]];
  return el("span", { class: "card" + (red ? " red" : ""), "data-card": code }, text);
}

function suitName(s) { return s ? SUIT[s] || s : "-"; }

async function api(method, path, body) {
  const res = await fetch(path, {
    method, headers: { "Authorization": "Bearer " + TOKEN, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({ error: res.statusText }));
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

// A live connection that comes back by itself (the service may restart after a power cut).
function live(onMessage, onStatus) {
  let ws;
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    ws = new WebSocket(`${proto}://${location.host}/ws?token=${encodeURIComponent(TOKEN)}`);
    ws.onopen = () => onStatus && onStatus(true);
    ws.onmessage = (m) => onMessage(JSON.parse(m.data));
    ws.onclose = () => { onStatus && onStatus(false); setTimeout(connect, 1000); };
  }
  connect();
}

function playerName(state, seat) {
  if (seat === null || seat === undefined) return "-";
  return state.players[seat];
}

// An error shown next to the control that caused it (each control group has its own .error box).
function errorBox(near) {
  let box = near && near.closest("[data-errors]");
  box = box ? box.querySelector(":scope > .error") : null;
  return box || document.getElementById("error");
}

async function sendFrom(control, path, body) {
  const box = errorBox(control);
  if (box) box.textContent = "";
  try { return await api("POST", path, body); } catch (e) { if (box) box.textContent = e.message; return null; }
}

// One hand's figures per side, in words: the same on every page (the table page, the scoreboard, the console).
function explainEl(x) {
  const t = el("table", { class: "explain", "data-hand": x.number },
    el("tr", {}, el("th", {}, `Hand ${x.number}`), el("th", {}, "bid"), el("th", {}, "took"),
       el("th", {}, "scored"), el("th", {}, "why")));
  for (const s of x.sides) {
    t.append(el("tr", { class: "side" }, el("td", {}, s.name), el("td", {}, s.bid || "-"),
      el("td", { class: "took" }, s.after_penalty !== s.took ? `${s.took} (${s.after_penalty} after penalty)` : s.took),
      el("td", { class: "scored" }, s.scored === null ? (x.done ? "-" : "…") : (s.scored > 0 ? "+" : "") + s.scored),
      el("td", { class: "why" }, s.why.join("; "))));
  }
  const box = el("div", { class: "hand-explained" });
  if (x.contract) box.append(el("div", { class: "muted" }, `${x.contract} · dealer ${x.dealer}`));
  box.append(t);
  return box;
}

function scoreEl(state) {
  const t = el("table", { class: "scores" });
  state.sides.forEach((name, i) => t.append(el("tr", {}, el("td", {}, name),
    el("td", { class: "big total", "data-side": i }, state.scores[i]))));
  if (state.winner !== null && state.winner !== undefined)
    t.append(el("tr", {}, el("td", { colspan: 2, class: "winner" }, `${state.sides[state.winner]} won the match`)));
  return t;
}

// The new-match form, built from GET /api/options: names, game (default: the served game) and every option.
async function matchForm(box, onStarted) {
  const info = await api("GET", "/api/options");
  const game = el("select", { id: "mf-game" }, ...Object.keys(info.games).map((g) =>
    el("option", g === info.game ? { value: g, selected: "selected" } : { value: g }, g.replace("_", " "))));
  const names = el("input", { id: "mf-players", placeholder: "names, comma separated (optional)", size: 26 });
  const opts = el("div", { class: "options" });
  const err = el("div", { class: "error" });
  function fields() {
    opts.replaceChildren(...info.games[game.value].map((o) => {
      let input;
      if (o.choices) {
        input = el("select", { "data-option": o.name, "data-type": o.type }, ...o.choices.map((c) =>
          el("option", c === o.default ? { value: String(c), selected: "selected" } : { value: String(c) }, String(c))));
      } else {
        input = el("input", { "data-option": o.name, "data-type": o.type, type: "number", min: o.low, max: o.high,
                              value: o.default, size: 4 });
      }
      return el("label", { class: "option" }, o.name.replaceAll("_", " "), " ", input);
    }));
  }
  game.onchange = fields;
  fields();
  const start = el("button", { id: "mf-start" }, "Start the match");
  start.onclick = async () => {
    err.textContent = "";
    const options = {};
    for (const input of opts.querySelectorAll("[data-option]")) {
      const o = info.games[game.value].find((x) => x.name === input.dataset.option);
      const v = input.dataset.type === "bool" ? input.value === "true" : input.dataset.type === "int" ?
        parseInt(input.value, 10) : input.value;
      if (v !== o.default) options[o.name] = v;
    }
    const players = names.value.split(",").map((x) => x.trim()).filter(Boolean);
    try {
      await api("POST", "/api/matches", { game: game.value, options, players: players.length ? players : null });
      if (onStarted) onStarted();
    } catch (e) { err.textContent = e.message; }
  };
  box.replaceChildren(el("div", {}, "Game ", game), el("div", {}, "Players ", names), opts, start, err);
}

function deviceBadges(state) {
  const out = el("span");
  const label = { dealer: { ok: "dealing machine", none: "dealt by hand: hands unknown", lost:
                            "DEALING MACHINE LOST: deal by hand" },
                  camera: { ok: "camera", none: "no camera: enter plays here", lost:
                            "CAMERA LOST: enter plays here" } };
  for (const d of ["dealer", "camera"]) {
    const s = (state.devices || {})[d] || "none";
    out.append(el("span", { class: "status " + s, id: "status-" + d }, (label[d][s] || `${d}: ${s}`)), " ");
  }
  return out;
}

function callText(state, c) {
  // A call a wrong read had made is shown withdrawn, with the reason; one held for the director is not a penalty.
  if (c.withdrawn) return `WITHDRAWN (no penalty: ${c.why}): ` + callText(state, { ...c, withdrawn: false });
  if (c.held) return `NOT SCORED (held for the director: ${c.why}): ` + callText(state, { ...c, held: false });
  if (c.words) return `RENEGE: ${c.words}, hand ${c.hand}` + (c.proof ? `, holding ${c.proof}` :
    c.proof_hidden ? ` (${c.proof_note || "the proof card is hidden"})` : "");
  const who = playerName(state, c.seat);
  if (c.kind === "holding out")
    return `RENEGE: ${who} was skipped at trick ${c.trick} while holding a trump` + (c.proof ? ` (${c.proof})` : "");
  return `RENEGE: ${who} did not follow ${suitName(c.led)} at trick ${c.trick} of hand ${c.hand}, playing ${c.card}` +
         (c.proof ? `, holding ${c.proof}` : c.proof_hidden ? ", holding a card of that suit" : "");
}
