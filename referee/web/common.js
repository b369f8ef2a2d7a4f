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
  return `${state.players[seat]} (seat ${seat})`;
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
  const who = playerName(state, c.seat);
  if (c.kind === "holding out")
    return `RENEGE: ${who} was skipped at trick ${c.trick} while holding a trump` + (c.proof ? ` (${c.proof})` : "");
  return `RENEGE: ${who} did not follow ${suitName(c.led)} at trick ${c.trick} of hand ${c.hand}, playing ${c.card}` +
         (c.proof ? `, holding ${c.proof}` : c.proof_hidden ? ", holding a card of that suit" : "");
}
