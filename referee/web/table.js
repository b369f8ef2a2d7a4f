// The table view: seats, the current trick, bids, contract, score and every proven renege call, live; for the
// table's token, the entry panel: every card, bid, declaration and setup step is one tap (GET /api/entry says
// what may come now, from public information only).
"use strict";
let STATE = null, ROLE = "public", ENTRY = null, SEAT = null, CALL_SUIT = null, FORM_BUILT = false;
const POS = [7, 5, 1, 3, 8]; // grid cells (0..8) for seats 0..3 (4: five-handed Pitch)
const SUIT_ORDER = ["S", "H", "D", "C"];

function render(state) {
  STATE = state;
  document.getElementById("devices").replaceChildren(deviceBadges(state));
  const seats = document.getElementById("seats");
  if (!state.match) {
    seats.replaceChildren(el("p", {}, "No match yet."));
    return;
  }
  const h = state.hand;
  document.getElementById("match").textContent =
    `match ${state.match_number} · ${state.game.replace("_", " ")} · hand ${h.number} · ${h.phase}` +
    (state.winner !== null ? ` · ${state.sides[state.winner]} won` : "");
  const cells = Array.from({ length: 9 }, () => el("div"));
  const trick = {};
  for (const c of (h.trick ? h.trick.cards : [])) trick[c.seat] = c.card;
  state.players.forEach((name, s) => {
    const bid = h.bids.filter((b) => b.seat === s).map((b) => b.bid).pop();
    const box = el("div", { class: "seat" + (h.to_act === s ? " turn" : ""), id: "seat-" + s },
      el("div", {}, el("b", {}, name), s === h.dealer ? " · dealer" : ""),
      el("div", { class: "muted" }, h.hand_sizes ? `${h.hand_sizes[s]} cards` : "", bid ? ` · bid ${bid}` : ""),
      trick[s] ? cardEl(trick[s]) : el("span", { class: "muted" }, "–"));
    cells[POS[s] !== undefined ? POS[s] : 4] = box;
  });
  cells[4] = el("div", { class: "muted" }, h.to_act !== null ? `to act: ${playerName(state, h.to_act)}` : "");
  seats.replaceChildren(...cells);
  document.getElementById("contract").textContent = h.contract
    ? `Contract: ${h.contract} by ${playerName(state, h.declarer)}; trump ${suitName(h.trump)}` +
      (h.direction ? `, ${h.direction}` : "") : "";
  document.getElementById("score").replaceChildren(scoreEl(state));
  // The hand being played, then the last one scored: the same figures as the scoreboard's.
  const shown = state.explained.slice(-2).reverse();
  document.getElementById("explained").replaceChildren(...shown.map(explainEl));
  document.getElementById("bids").replaceChildren(...h.bids.map((b) =>
    el("div", {}, `${playerName(state, b.seat)}: ${b.bid}`)));
  const tricks = document.getElementById("tricks");
  tricks.replaceChildren(...h.tricks.map((t, i) => el("tr", {}, el("td", {}, i + 1),
    el("td", {}, ...t.cards.map((c) => el("span", {}, `${state.players[c.seat]} `, cardEl(c.card), " "))))));
  const alerts = document.getElementById("alerts");
  if (state.alerts.length) alerts.replaceChildren(...state.alerts.map((c) =>
    el("div", { class: "renege" + (c.withdrawn ? " withdrawn" : c.held ? " held" : ""), "data-hand": c.hand,
                "data-seat": c.seat, "data-trick": c.trick }, callText(state, c))));
  else alerts.replaceChildren(el("span", { class: "muted" }, "no renege called"));
}

// ------------------------------------------------------------------ the entry panel (the table's token)

async function refreshEntry() {
  if (ROLE === "public") return;
  let entry;
  try { entry = await api("GET", "/api/entry"); } catch (e) { document.getElementById("error").textContent = e.message; return; }
  if (ENTRY !== null && entry.seq < ENTRY.seq) return; // an older answer that came late
  if (ENTRY === null || entry.seat !== ENTRY.seat || entry.phase !== ENTRY.phase) SEAT = entry.seat;
  ENTRY = entry;
  renderEntry();
}

function tap(control, path, body) {
  sendFrom(control, path, body).then((res) => { if (res) refreshEntry(); });
}

function renderEntry() {
  const e = ENTRY, state = STATE;
  // the log position this panel was drawn for (a test, or a curious director, can tell it is up to date)
  document.getElementById("controls").dataset.seq = e && e.seq !== undefined ? e.seq : 0;
  const over = !state || !state.match || state.winner !== null;
  const formBox = document.getElementById("new-match");
  formBox.hidden = !over;
  if (over && !FORM_BUILT) { FORM_BUILT = true; matchForm(document.getElementById("match-form")); }
  if (!over) FORM_BUILT = false;
  const todo = document.getElementById("todo");
  if (over || !e || !e.match) {
    todo.textContent = over && state && state.match ? "The match is over: start another." : "Start a match.";
    for (const id of ["actions", "cards", "picks"]) document.getElementById(id).replaceChildren();
    document.getElementById("seat-picker").hidden = true;
    return;
  }
  const name = (s) => (s === null || s === undefined ? "" : state.players[s]);
  todo.textContent = state.to_deal ? `${name(state.dealer)} deals` :
    e.cards !== null ? `${name(SEAT)} to play` : e.seat !== null ? `${name(e.seat)} to act (${e.phase})` : e.phase;
  // The one-tap actions (deal, bids, declarations, setup steps); five-handed Pitch's calls: suit, then card.
  const actions = document.getElementById("actions");
  const calls = e.actions.filter((a) => a.call);
  const plain = e.actions.filter((a) => !a.call);
  const buttons = plain.map((a) => el("button", { class: "action", "data-kind": a.kind,
    "data-value": a.body ? (a.body.bid || a.body.trump || a.body.event || (a.body.direction ? "nt-" + a.body.direction : "")) : "machine",
    onclick: (ev) => tap(ev.target, a.path, a.body) }, a.kind === "declare" && a.body.trump ? `${SUIT[a.body.trump]} ${a.label}` : a.label));
  if (calls.length) {
    for (const s of SUIT_ORDER) buttons.push(el("button", { class: "action" + (CALL_SUIT === s ? " chosen" : ""),
      "data-kind": "declare-suit", "data-value": s, onclick: () => { CALL_SUIT = s; renderEntry(); } }, `${SUIT[s]} trump`));
  }
  actions.replaceChildren(...buttons);
  const callBox = document.getElementById("calls-picker");
  callBox.hidden = !(calls.length && CALL_SUIT);
  if (calls.length && CALL_SUIT) {
    callBox.replaceChildren(el("div", { class: "muted" }, "call a card:"), ...calls.filter((a) => a.trump === CALL_SUIT).map((a) =>
      cardButton(a.call, true, true, (ev) => tap(ev.currentTarget, a.path, a.body))));
  }
  // The seat that plays (the seat on turn by default; another for a play out of turn).
  const picker = document.getElementById("seat-picker");
  picker.hidden = e.cards === null;
  if (e.cards !== null) {
    picker.replaceChildren(el("span", { class: "muted" }, "seat: "), ...state.players.map((p, s) =>
      el("button", { class: "seat-pick" + (s === SEAT ? " chosen" : ""), "data-seat": s,
                     onclick: () => { SEAT = s; renderEntry(); } }, p)));
  }
  const cards = document.getElementById("cards");
  if (e.cards === null) cards.replaceChildren();
  else {
    const rows = {};
    for (const c of e.cards) {
      const suit = c.card.length === 2 && "SHDC".includes(c.card[1]) && c.card !== "BJ" && c.card !== "LJ" ? c.card[1] : "J";
      (rows[suit] = rows[suit] || []).push(c);
    }
    const order = [...SUIT_ORDER, "J"].filter((s) => rows[s]);
    // the suit to follow first: the hint from the trick on the table
    order.sort((a, b) => (rows[b].some((c) => c.follows) ? 1 : 0) - (rows[a].some((c) => c.follows) ? 1 : 0));
    cards.replaceChildren(...order.map((s) => el("div", { class: "cardrow" }, ...rows[s].slice().reverse().map((c) =>
      cardButton(c.card, c.legal, c.follows, (ev) => tap(ev.currentTarget, "/api/play", { seat: SEAT, card: c.card }))))));
  }
  renderPicks(e);
}

function cardButton(code, legal, follows, onclick) {
  const red = code[1] === "H" || code[1] === "D";
  const text = code === "BJ" || code === "LJ" ? code : code[0] + SUIT[code[1]];
  const attrs = { class: "cardbtn" + (red ? " red" : "") + (follows ? " follows" : ""), "data-card": code,
                  "data-legal": legal ? "true" : "false", onclick };
  if (!legal) attrs.disabled = "disabled";
  return el("button", attrs, text);
}

// Pitch's face-up steps with several cards (discard, burn): the seat, the cards (tap to choose), then one tap.
function renderPicks(e) {
  const box = document.getElementById("picks");
  box.replaceChildren(...e.picks.map((p) => {
    const chosen = new Set();
    let seat = p.seats[0];
    const seatRow = el("div", {}, ...p.seats.map((s) => el("button", { class: "seat-pick" + (s === seat ? " chosen" : ""),
      "data-seat": s, onclick: (ev) => { seat = s; ev.target.parentNode.querySelectorAll("button").forEach((b) =>
        b.classList.toggle("chosen", b === ev.target)); } }, STATE.players[s])));
    const cards = el("div", { class: "cardgrid" }, ...p.cards.map((c) => cardButton(c, true, false, (ev) => {
      const b = ev.currentTarget;
      if (chosen.has(c)) chosen.delete(c); else chosen.add(c);
      b.classList.toggle("chosen", chosen.has(c));
    })));
    const go = el("button", { class: "action", "data-kind": "pick", "data-value": p.event, onclick: (ev) =>
      tap(ev.target, p.path, { event: p.event, seat, cards: [...chosen] }) }, `${p.event}: put the chosen cards down`);
    return el("div", { class: "pick", "data-errors": "" }, el("div", {}, el("b", {}, p.label)), seatRow, cards, go,
              el("div", { class: "error" }));
  }));
}

live((msg) => {
  if (msg.type === "hello") {
    ROLE = msg.role;
    document.getElementById("controls").hidden = ROLE === "public";
  }
  if (msg.state) { render(msg.state); refreshEntry(); }
}, (up) => {
  const c = document.getElementById("conn");
  c.textContent = up ? "live" : "reconnecting"; c.className = "status " + (up ? "ok" : "lost");
});
