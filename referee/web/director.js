// The director's console: the hands, each call with its proof and evidence, rulings and corrections with who
// and why (each undoable), the events of every hand of the match, a new match with its options.
"use strict";
let STATE = null, EVENT_HAND = null;

function whoWhy() {
  return { who: document.getElementById("who").value.trim(), why: document.getElementById("why").value.trim() };
}

// A correction or ruling: its reason is asked for next to the button pressed, in words.
function correct(control, path, body) {
  const ww = whoWhy();
  const box = errorBox(control);
  if (!ww.why || !ww.who) {
    if (box) box.textContent = !ww.who ? "Say who decides (Who, at the top) first." :
      "Give a reason first (Why, at the top): it is kept with the ruling.";
    document.getElementById(!ww.who ? "who" : "why").focus();
    return;
  }
  sendFrom(control, path, { ...body, ...ww });
}

function cards(list) { return el("span", {}, ...list.map(cardEl)); }

function eventWords(state, e) {
  const p = (s) => (s === undefined || s === null ? "" : state.players[s]);
  const cs = (l) => (l || []).map((c) => c || "?").join(" ");
  switch (e.event) {
    case "deal": return `${p(e.dealer)} dealt` + (e.hands ? " (hands read)" : " by hand (hands unknown)");
    case "bid": return `${p(e.seat)} bid ${e.bid}`;
    case "declare": return `${p(e.seat)} declared ${e.trump ? suitName(e.trump) : "no trump " + (e.direction || "")}` +
      (e.call ? `, calling ${e.call}` : "");
    case "play": return `${p(e.seat)} played ${e.card}`;
    case "ruling": return `ruling: ${e.ruling} the call on ${p(e.seat)} at trick ${e.trick} of hand ${e.hand}`;
    case "discard": return `${p(e.seat)} put down ${(e.cards || []).length} cards: ${cs(e.cards)}`;
    case "fold": return `${(state.sides || [])[e.team] || "team " + e.team} folded`;
    default: return `${p(e.seat)} ${e.event} ${cs(e.cards)}${e.card ? " " + e.card : ""}${e.joker ? " " + e.joker : ""}`;
  }
}

function callBox(state, c) {
  const decided = c.decided;
  const cls = c.withdrawn ? "withdrawn" : c.rejected ? "rejected" : c.held ? "held" : c.proven ? "proven" :
    "suspicion";
  const title = c.withdrawn ? `WITHDRAWN (no penalty): ${c.words} (hand ${c.hand}): ${c.why || "a read was wrong"}` :
    c.rejected ? `REJECTED: ${c.words} (hand ${c.hand})` :
    c.proven ? callText(state, c) : `SUSPICION (not scored): ${c.words} (hand ${c.hand})`;
  const box = el("div", { class: "call " + cls, "data-hand": c.hand, "data-seat": c.seat, "data-trick": c.trick,
                          "data-errors": "" },
    el("div", {}, title),
    el("div", {}, c.proof ? ["proof: ", cardEl(c.proof)] : "", c.established ? " · established" :
       " · not yet established (the card may be taken back)"),
    el("ul", {}, ...c.evidence.map((e) => el("li", {}, `event ${e.seq}: ${e.what}` +
      (e.source ? ` (read by the ${e.source}${e.confidence != null ? `, confidence ${e.confidence}` : ""})` : ""),
      e.frame ? el("div", {}, el("a", { href: `${e.frame}?token=${TOKEN}`, target: "_blank" },
        el("img", { src: `${e.frame}?token=${TOKEN}`, width: "240", alt: `camera frame of event ${e.seq}`,
                    class: "evidence" }))) : null))));
  const ruling = (r) => correct(box, "/api/rulings", { hand: c.hand, seat: c.seat, trick: c.trick, ruling: r });
  if (decided) {
    box.append(el("div", { class: "decided" }, `${decided.ruling === "accept" ? "ACCEPTED" : "REJECTED"} by ` +
                  `${decided.who}: ${decided.why}`),
      el("button", { class: "undo-ruling", onclick: () => correct(box, "/api/corrections/undo",
                                                                  { target: decided.seq }) }, "undo this ruling"));
  } else if (!c.withdrawn) {
    box.append(el("button", { class: "accept", onclick: () => ruling("accept") }, "accept"),
               el("button", { class: "reject", onclick: () => ruling("reject") }, "reject"));
  }
  box.append(el("div", { class: "error" }));
  return box;
}

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
    `match ${state.match_number} · ${state.game} · hand ${h.number} · ${h.phase}`;
  document.getElementById("score").replaceChildren(scoreEl(state));
  const calls = document.getElementById("calls");
  calls.replaceChildren(...state.calls.slice().reverse().map((c) => callBox(state, c)));
  if (!state.calls.length) calls.replaceChildren(el("span", { class: "muted" }, "none"));
  const loc = document.getElementById("locations");
  loc.replaceChildren(el("tr", {}, el("th", {}, "where"), el("th", {}, "count"), el("th", {}, "certain"),
                         el("th", {}, "also possible")));
  for (const [name, l] of Object.entries(h.locations || {})) {
    const maybe = l.possible.filter((c) => !l.certain.includes(c));
    const where = name.startsWith("seat ") ? state.players[parseInt(name.slice(5), 10)] || name : name;
    loc.append(el("tr", {}, el("td", {}, where), el("td", {}, l.count), el("td", {}, cards(l.certain)),
                  el("td", { class: "muted" }, maybe.length > 20 ? `${maybe.length} cards` : maybe.join(" "))));
  }
  document.getElementById("contract").textContent = h.contract ?
    `Contract ${h.contract} by ${playerName(state, h.declarer)}, trump ${suitName(h.trump)}` : "";
  // The events of any hand of the match (a finished hand's stay here, to be corrected).
  const pick = document.getElementById("event-hand");
  const withEvents = state.hand_events.filter((x) => x.events.length);
  const newest = withEvents.length ? withEvents[withEvents.length - 1].number : null;
  const shownHand = withEvents.some((x) => x.number === EVENT_HAND) ? EVENT_HAND : newest;
  pick.replaceChildren(...withEvents.map((x) => el("option", x.number === shownHand ?
    { value: x.number, selected: "selected" } : { value: x.number }, `${x.number}${x.done ? " (done)" : ""}`)));
  const chosen = withEvents.find((x) => x.number === shownHand);
  const events = document.getElementById("events");
  events.replaceChildren(...(chosen ? chosen.events : []).slice().reverse().map((e) => {
    const row = el("tr", { "data-seq": e.seq, "data-errors": "" }, el("td", {}, e.seq),
      el("td", {}, eventWords(state, e.event)));
    const tools = el("td", {}, el("button", { class: "undo", onclick: () => correct(row, "/api/corrections/undo",
                                                                                   { target: e.seq }) }, "undo"));
    if (e.event.event === "play") {
      const input = el("input", { class: "fix-card", size: 4, placeholder: "card" });
      tools.append(input, el("button", { class: "fix", onclick: () => {
        if (!input.value.trim()) { errorBox(row).textContent = "Type the right card first (e.g. TH)."; return; }
        correct(row, "/api/corrections/fix_card", { target: e.seq, card: input.value.trim() });
      } }, "fix card"));
    }
    row.append(tools, el("td", { class: "error" }));
    return row;
  }));
  document.getElementById("observations").replaceChildren(...(state.observations || []).slice().reverse().map((o) =>
    el("tr", {}, el("td", {}, o.seq), el("td", {}, `camera unsure: ${playerName(state, o.seat)}`),
       el("td", {}, o.detail || ""))));
  document.getElementById("refused").replaceChildren(...state.refused.slice(-20).reverse().map((r) =>
    el("tr", {}, el("td", {}, r.seq), el("td", {}, r.event && r.event.event ? eventWords(state, r.event) : ""),
       el("td", {}, r.why))));
  document.getElementById("corrections").replaceChildren(...state.corrections.slice().reverse().map((c) => {
    const what = c.kind === "ruling" ? `ruling: ${c.ruling} the call on ${playerName(state, c.call.seat)} at trick ` +
      `${c.call.trick} of hand ${c.call.hand}` : `${c.kind} of event ${c.target}`;
    const row = el("tr", { "data-seq": c.seq, "data-kind": c.kind, "data-errors": "" }, el("td", {}, c.seq),
      el("td", {}, what + (c.active ? "" : " (undone)")), el("td", {}, `${c.who}: ${c.why}`));
    row.append(el("td", {}, el("button", { class: "undo", onclick: () => correct(row, "/api/corrections/undo",
                                                                              { target: c.seq }) },
                               c.active ? "undo" : "restore")), el("td", { class: "error" }));
    return row;
  }));
  document.getElementById("history").replaceChildren(...state.explained.slice().reverse().map(explainEl));
}

document.getElementById("event-hand").onchange = (ev) => {
  // The director's choice of a hand stays until another is chosen (null: follow the newest hand).
  const n = parseInt(ev.target.value, 10);
  const numbers = STATE.hand_events.filter((x) => x.events.length).map((x) => x.number);
  EVENT_HAND = n === numbers[numbers.length - 1] ? null : n;
  render(STATE);
};
document.querySelectorAll("button[data-dev]").forEach((b) => {
  b.onclick = () => sendFrom(b, "/api/status", { device: b.dataset.dev, state: b.dataset.state, why: whoWhy().why });
});
matchForm(document.getElementById("match-form"));

// The pages' links with their QR codes (and the certificate's fingerprint over HTTPS), for the tablets.
async function showJoin() {
  const box = document.getElementById("join");
  try {
    const join = await api("GET", "/api/join");
    const items = join.pages.map((p) => {
      const qr = el("div", { class: "qr", "data-page": p.page });
      qr.innerHTML = p.qr_svg;  // an SVG made by the service from the link, not from any user's text
      return el("div", { class: "join-page" }, el("strong", {}, p.page), " - ", p.what, qr,
                el("a", { href: p.url, class: "join-link" }, p.url));
    });
    if (join.tls_fingerprint) {
      items.push(el("div", { class: "fingerprint" }, "HTTPS certificate fingerprint (check it on a tablet that "
                                                      + "warns about the certificate): ", join.tls_fingerprint));
    }
    box.replaceChildren(...items);
  } catch (err) {
    box.replaceChildren(el("span", { class: "error" }, `the join links could not be loaded: ${err.message}`));
  }
}
showJoin();
live((msg) => { if (msg.state) render(msg.state); }, (up) => {
  const c = document.getElementById("conn");
  c.textContent = up ? "live" : "reconnecting"; c.className = "status " + (up ? "ok" : "lost");
});
