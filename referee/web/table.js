// The table view: seats, the current trick, bids, contract, score and every proven renege call, live.
"use strict";
let STATE = null, ROLE = "public";
const POS = [7, 5, 1, 3, 8]; // grid cells (0..8) for seats 0..3 (4: five-handed Pitch)

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
    `match ${state.match} · ${state.game.replace("_", " ")} · hand ${h.number} · ${h.phase}` +
    (state.winner !== null ? ` · team ${state.winner} has won` : "");
  const cells = Array.from({ length: 9 }, () => el("div"));
  const trick = {};
  for (const c of (h.trick ? h.trick.cards : [])) trick[c.seat] = c.card;
  state.players.forEach((name, s) => {
    const bid = h.bids.filter((b) => b.seat === s).map((b) => b.bid).pop();
    const box = el("div", { class: "seat" + (h.to_act === s ? " turn" : ""), id: "seat-" + s },
      el("div", {}, el("b", {}, name), ` (seat ${s})`, s === h.dealer ? " · dealer" : ""),
      el("div", { class: "muted" }, h.hand_sizes ? `${h.hand_sizes[s]} cards` : "", bid ? ` · bid ${bid}` : ""),
      trick[s] ? cardEl(trick[s]) : el("span", { class: "muted" }, "–"));
    cells[POS[s] !== undefined ? POS[s] : 4] = box;
  });
  cells[4] = el("div", { class: "muted" }, h.to_act !== null ? `to act: ${playerName(state, h.to_act)}` : "");
  seats.replaceChildren(...cells);
  document.getElementById("contract").textContent = h.contract
    ? `Contract: ${h.contract} by ${playerName(state, h.declarer)}; trump ${suitName(h.trump)}` +
      (h.direction ? `, ${h.direction}` : "") : "";
  const sides = state.scores.length === 2 ? ["Team 0 (seats 0, 2)", "Team 1 (seats 1, 3)"]
    : state.players.map((p, i) => `${p} (seat ${i})`);
  const score = el("table", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "score"), el("th", {}, "taken")));
  sides.forEach((name, i) => score.append(el("tr", {}, el("td", {}, name), el("td", { class: "big" }, state.scores[i]),
                                             el("td", {}, h.taken[i] !== undefined ? h.taken[i] : ""))));
  document.getElementById("score").replaceChildren(score);
  document.getElementById("bids").replaceChildren(...h.bids.map((b) =>
    el("div", {}, `${playerName(state, b.seat)}: ${b.bid}`)));
  const tricks = document.getElementById("tricks");
  tricks.replaceChildren(...h.tricks.map((t, i) => el("tr", {}, el("td", {}, i + 1),
    el("td", {}, ...t.cards.map((c) => el("span", {}, `${state.players[c.seat]} `, cardEl(c.card), " "))))));
  const calls = [...h.reneges];
  for (const past of state.history.slice().reverse()) calls.push(...past.reneges);
  const alerts = document.getElementById("alerts");
  if (calls.length) alerts.replaceChildren(...calls.map((c) =>
    el("div", { class: "renege" + (c.withdrawn ? " withdrawn" : c.held ? " held" : ""), "data-hand": c.hand,
                "data-seat": c.seat, "data-trick": c.trick }, callText(state, c))));
  else alerts.replaceChildren(el("span", { class: "muted" }, "no renege called"));
  const seat = document.getElementById("seat");
  if (seat.options.length !== state.players.length) {
    seat.replaceChildren(...state.players.map((p, i) => el("option", { value: i }, `${i} ${p}`)));
  }
  if (h.to_act !== null && document.activeElement !== seat) seat.value = h.to_act;
  document.getElementById("todo").textContent = state.to_deal ? `${playerName(state, state.dealer)} deals` :
    h.to_act !== null ? `${playerName(state, h.to_act)} to act (${h.phase})` : "";
}

async function send(path, body) {
  const err = document.getElementById("error");
  err.textContent = "";
  try { await api("POST", path, body); } catch (e) { err.textContent = e.message; }
}

function seatValue() { return parseInt(document.getElementById("seat").value, 10); }

function wire() {
  document.getElementById("deal-machine").onclick = () => send("/api/deal/machine", undefined);
  document.getElementById("deal-hand").onclick = () => send("/api/deal", { hands: null });
  document.getElementById("refill-machine").onclick = () => send("/api/pitch/refill", { seat: seatValue() });
  document.getElementById("rob-machine").onclick = () => send("/api/pitch/rob", {});
  document.getElementById("send-bid").onclick = () =>
    send("/api/bid", { seat: seatValue(), bid: document.getElementById("bid").value });
  document.getElementById("send-declare").onclick = () => {
    const body = { seat: seatValue(), trump: document.getElementById("trump").value || null };
    const d = document.getElementById("direction").value; if (d) body.direction = d;
    const c = document.getElementById("call").value; if (c) body.call = c;
    send("/api/declare", body);
  };
  document.getElementById("send-play").onclick = () =>
    send("/api/play", { seat: seatValue(), card: document.getElementById("card").value });
  document.getElementById("send-setup").onclick = () => {
    const kind = document.getElementById("setup-kind").value;
    const cards = document.getElementById("setup-cards").value.split(/\s+/).filter(Boolean)
      .map((c) => (c === "?" ? null : c));
    const body = { event: kind };
    if (kind === "fold") body.team = parseInt(document.getElementById("setup-team").value, 10);
    else body.seat = seatValue();
    if (kind === "exchange") body.card = cards[0];
    else if (kind === "joker_swap") { body.joker = cards[0]; body.drew = cards[1] || null; }
    else if (kind !== "fold") body.cards = cards;
    send("/api/setup", body);
  };
}

wire();
live((msg) => {
  if (msg.type === "hello") { ROLE = msg.role; document.getElementById("controls").hidden = ROLE === "public"; }
  if (msg.state) render(msg.state);
}, (up) => {
  const c = document.getElementById("conn");
  c.textContent = up ? "live" : "reconnecting"; c.className = "status " + (up ? "ok" : "lost");
});
