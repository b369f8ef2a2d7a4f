// The director's console: the hands, each call with its proof and evidence, corrections with who and why.
"use strict";
let STATE = null;

function whoWhy() {
  return { who: document.getElementById("who").value, why: document.getElementById("why").value };
}

async function send(path, body) {
  const err = document.getElementById("error");
  err.textContent = "";
  try { await api("POST", path, body); } catch (e) { err.textContent = e.message; }
}

function cards(list) { return el("span", {}, ...list.map(cardEl)); }

function render(state) {
  STATE = state;
  document.getElementById("devices").replaceChildren(deviceBadges(state));
  document.getElementById("exports").replaceChildren(
    el("a", { href: `/api/export/record?token=${TOKEN}` }, "table record (JSONL)"), " · ",
    el("a", { href: `/api/export/pbn?token=${TOKEN}` }, "PBN-style text"), " · ",
    el("a", { href: `/api/log?token=${TOKEN}` }, "event log"));
  if (!state.match) return;
  const h = state.hand;
  document.getElementById("match").textContent =
    `match ${state.match} · ${state.game} · hand ${h.number} · ${h.phase} · scores ${state.scores.join(" : ")}`;
  const calls = document.getElementById("calls");
  calls.replaceChildren(...state.calls.slice().reverse().map((c) => {
    const box = el("div", { class: "call " + (c.withdrawn ? "withdrawn" : c.held ? "held" :
                                              c.proven ? "proven" : "suspicion") },
      el("div", {}, c.proven ? callText(state, c) :
        `SUSPICION (not scored): ${playerName(state, c.seat)} did not follow ${suitName(c.led)} at trick ${c.trick} ` +
        `of hand ${c.hand}, playing ${c.card}`),
      el("div", {}, c.proven ? "proof: " : "", c.proof ? cardEl(c.proof) : "",
         c.established ? " · established" : " · not yet established (the card may be taken back)"),
      el("ul", {}, ...c.evidence.map((e) => el("li", {}, `event ${e.seq}: ${e.what}` +
        (e.source ? ` (read by the ${e.source}${e.confidence != null ? `, confidence ${e.confidence}` : ""})` : ""),
        e.frame ? el("div", {}, el("a", { href: `${e.frame}?token=${TOKEN}`, target: "_blank" },
          el("img", { src: `${e.frame}?token=${TOKEN}`, width: "240", alt: `camera frame of event ${e.seq}`,
                      class: "evidence" }))) : null))),
      el("div", {}, ...c.rulings.map((r) => el("div", {}, `ruling: ${r.ruling} by ${r.who}: ${r.why}`))),
      el("button", { onclick: () => send("/api/rulings", { hand: c.hand, seat: c.seat, trick: c.trick,
                                                            ruling: "accept", ...whoWhy() }) }, "accept"),
      el("button", { onclick: () => send("/api/rulings", { hand: c.hand, seat: c.seat, trick: c.trick,
                                                            ruling: "reject", ...whoWhy() }) }, "reject"));
    return box;
  }));
  if (!state.calls.length) calls.replaceChildren(el("span", { class: "muted" }, "none"));
  const loc = document.getElementById("locations");
  loc.replaceChildren(el("tr", {}, el("th", {}, "where"), el("th", {}, "count"), el("th", {}, "certain"),
                         el("th", {}, "also possible")));
  for (const [name, l] of Object.entries(h.locations || {})) {
    const maybe = l.possible.filter((c) => !l.certain.includes(c));
    loc.append(el("tr", {}, el("td", {}, name), el("td", {}, l.count), el("td", {}, cards(l.certain)),
                  el("td", { class: "muted" }, maybe.length > 20 ? `${maybe.length} cards` : maybe.join(" "))));
  }
  document.getElementById("contract").textContent = h.contract ?
    `Contract ${h.contract} by seat ${h.declarer}, trump ${suitName(h.trump)}` : "";
  const events = document.getElementById("events");
  events.replaceChildren(...state.events.slice().reverse().map((e) => el("tr", {},
    el("td", {}, e.seq), el("td", {}, JSON.stringify(e.event).slice(0, 110)),
    el("td", {}, el("button", { onclick: () => send("/api/corrections/undo", { target: e.seq, ...whoWhy() }) },
                    "undo"),
       e.event.event === "play" ? el("button", { onclick: () => {
         const c = prompt(`The right card for event ${e.seq} (read as ${e.event.card})?`);
         if (c) send("/api/corrections/fix_card", { target: e.seq, card: c, ...whoWhy() });
       } }, "fix card") : null))));
  document.getElementById("observations").replaceChildren(...(state.observations || []).slice().reverse().map((o) =>
    el("tr", {}, el("td", {}, o.seq), el("td", {}, `camera unsure: seat ${o.seat}`), el("td", {}, o.detail || ""))));
  document.getElementById("refused").replaceChildren(...state.refused.slice(-20).reverse().map((r) =>
    el("tr", {}, el("td", {}, r.seq), el("td", {}, JSON.stringify(r.event).slice(0, 100)), el("td", {}, r.why))));
  document.getElementById("corrections").replaceChildren(...state.corrections.slice().reverse().map((c) =>
    el("tr", {}, el("td", {}, c.seq), el("td", {}, `${c.kind} ${c.target}${c.active ? "" : " (undone)"}`),
       el("td", {}, `${c.who}: ${c.why}`),
       el("td", {}, el("button", { onclick: () => send("/api/corrections/undo", { target: c.seq, ...whoWhy() }) },
                       "undo")))));
  document.getElementById("history").replaceChildren(...state.history.map((x) => el("tr", {},
    el("td", {}, x.number), el("td", {}, `${x.contract || "-"} by ${x.declarer}`), el("td", {}, `taken ${x.taken}`),
    el("td", {}, `score ${x.score}`), el("td", {}, `${x.reneges.length} renege(s)`))));
}

document.querySelectorAll("button[data-dev]").forEach((b) => {
  b.onclick = () => send("/api/status", { device: b.dataset.dev, state: b.dataset.state, why: whoWhy().why });
});
document.getElementById("new-match").onclick = () => {
  const names = document.getElementById("players").value.split(",").map((s) => s.trim()).filter(Boolean);
  send("/api/matches", { game: document.getElementById("game").value, players: names.length ? names : null });
};
live((msg) => { if (msg.state) render(msg.state); }, (up) => {
  const c = document.getElementById("conn");
  c.textContent = up ? "live" : "reconnecting"; c.className = "status " + (up ? "ok" : "lost");
});
