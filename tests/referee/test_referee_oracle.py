"""Refusals are no oracle for hidden cards (issue 13, item 1): for one public history and two different hidden
states (other hands, kitty, pack), every request the table's token makes gets the same answer in both, unless
one state accepts it (then the other's refusal is the fixed text, which names no card)."""

import os
import random
import re

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import CODES, cards_of
from engine.hand import BID, DECLARE
from engine.match import Match
from engine.simulate import random_deal
from referee.app import create_app
from tools.service_soak import endpoint

EXAMPLES = int(os.environ.get("CARDREF_PROPERTY_EXAMPLES", "12"))
GAMES = ("bid_whist", "pitch", "bid_euchre")
PLAYERS = ["Ann", "Bo", "Cy", "Di"]
CARD = re.compile(r"\b(?:[2-9TJQKA][SHDC]|BJ|LJ)\b")


def table_at(tmp, game, hidden_seed, public):
    """A service whose match has the hands of ``hidden_seed`` and the public events ``public`` after its deal."""
    app = create_app(tmp)
    client = TestClient(app)
    tokens = app.state.tokens
    d = {"Authorization": "Bearer " + tokens["director"]}
    assert client.post("/api/matches", json={"game": game, "players": PLAYERS}, headers=d).status_code == 200
    mirror = Match(game, {}, PLAYERS)
    deal = random_deal(mirror.hand, random.Random(hidden_seed))
    mirror.apply(deal)
    path, body = endpoint(deal)
    assert client.post(path, json=body, headers=d).status_code == 200
    for e in public:
        path, body = endpoint(e)
        r = client.post(path, json=body, headers={"Authorization": "Bearer " + tokens["table"]})
        assert r.status_code == 200, r.json()
        mirror.apply(e)
    return client, tokens, mirror, deal


def public_prefix(game, seed, steps):
    """Bids and the declaration, chosen at random: none of them rests on the hands, so any deal can have them."""
    m = Match(game, {}, PLAYERS)
    m.apply(random_deal(m.hand, random.Random(0), known=False))
    rng = random.Random(seed)
    out = []
    while len(out) < steps and m.hand.phase in (BID, DECLARE):
        e = rng.choice(m.hand.legal_events())
        m.apply(e)
        out.append(e)
    return out


def request_strategy(draw, mirror, deal):
    """One request as a hostile tablet would make it: any event kind, any seat, cards from the deck and from the
    hidden hands of the first state (the oracle attack named each card it guessed), stray card fields."""
    deck = [CODES[c] for c in cards_of(mirror.hand.deck_mask)]
    hidden = [c for h in deal["hands"] for c in h] + list(deal.get("kitty") or deal.get("pack") or [])
    card = st.one_of(st.sampled_from(deck), st.sampled_from(hidden))
    legal = mirror.hand.legal_events()
    kinds = ["discard", "joker_swap", "exchange", "draw", "rob", "burn", "play", "fold", "bid", "declare"]
    # Half the time the kind of event and the seat the table is at now: where a refusal can rest on hidden cards.
    kind = draw(st.sampled_from([legal[0]["event"]] * 9 if legal else []) | st.sampled_from(kinds))
    to_act = [e["seat"] for e in legal if "seat" in e][:1]
    seat = draw(st.sampled_from(to_act * 3) | st.integers(0, 3) if to_act else st.integers(0, 3))
    if kind == "play":
        return {"event": "play", "seat": seat, "card": draw(card)}
    if kind == "bid":
        return {"event": "bid", "seat": seat, "bid": draw(st.sampled_from(["pass", "4", "5 low", "single", "3"]))}
    if kind == "declare":
        return {"event": "declare", "seat": seat, "trump": draw(st.sampled_from(["S", "H", None]))}
    if kind == "fold":
        return {"event": "fold", "team": draw(st.integers(0, 1))}
    event = {"event": kind, "seat": seat}
    if kind == "exchange":
        event["card"] = draw(card)
    elif kind == "joker_swap":
        event["joker"] = draw(st.sampled_from(["BJ", "LJ", "AS"]))
        event["drew"] = draw(st.one_of(st.none(), card))
    else:
        # Most often the seat's own cards in the first state, the right number of them, one perhaps swapped for
        # a guess: the attack that named one guess beside five cards the seat surely holds.
        own = list(deal["hands"][seat]) + (list(deal.get("kitty") or []) if kind == "discard" else [])
        n = draw(st.sampled_from([6, 6, 6, 1, 2, 0, 3, 5, 7]))
        cards = draw(st.one_of(st.permutations(own).map(lambda p: list(p[:n])),
                               st.lists(card, min_size=0, max_size=7)))
        if cards and draw(st.booleans()):
            cards[draw(st.integers(0, len(cards) - 1))] = draw(card)
        event["cards"] = cards
    # Fields the event ignores, stuffed with card names: never read, never repeated back.
    for field in draw(st.sets(st.sampled_from(["card", "joker", "drew", "cards"]))):
        if field not in event:
            event[field] = [draw(card) for _ in range(3)] if field == "cards" else draw(card)
    return event


def answer(client, tokens, event):
    path, body = endpoint(event)
    if path == "/api/setup":
        body = {k: v for k, v in body.items() if k in ("event", "seat", "team", "cards", "card", "joker", "drew")}
    r = client.post(path, json=body, headers={"Authorization": "Bearer " + tokens["table"]})
    return r.status_code, r.json()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(game=st.sampled_from(GAMES), prefix_seed=st.integers(0, 10**6), steps=st.sampled_from([0, 3, 99, 99, 99, 99]),
       hidden=st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), data=st.data())
def test_a_table_gets_the_same_answer_whatever_the_hidden_cards(tmp_path_factory, game, prefix_seed, steps,
                                                                 hidden, data):
    public = public_prefix(game, prefix_seed, steps)
    a = table_at(tmp_path_factory.mktemp("a"), game, hidden[0], public)
    b = table_at(tmp_path_factory.mktemp("b"), game, hidden[1], public)
    for _ in range(4):
        event = data.draw(st.composite(lambda draw: request_strategy(draw, a[2], a[3]))())
        status_a, body_a = answer(a[0], a[1], event)
        status_b, body_b = answer(b[0], b[1], event)
        if status_a != 200 and status_b != 200:
            assert (status_a, body_a["error"]) == (status_b, body_b["error"]), event
            continue
        if status_a == 200 and status_b == 200:
            # Both took it: what the table is shown next is the public view, the same in both.
            assert body_a["state"] == body_b["state"], event
            continue
        # One state took it, the other refused: the refusal is the fixed text and names no card.
        refused = body_b if status_a == 200 else body_a
        assert refused["error"].startswith("not a legal "), (event, refused)
        assert not CARD.search(refused["error"])
        return
