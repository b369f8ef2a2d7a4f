"""The pages as a club uses them, in a real headless Chromium (Debian's ``chromium`` driven by Playwright) against a
real ``cardref serve``: a whole hand entered by taps on a phone-sized table page; a match started with its options
from the page; the director rejects a call, then accepts it, then undoes a ruling; the public page shows a call
mid-hand without its proof card."""

import random

import httpx
import pytest
from playwright import sync_api
from test_referee_browser import ARGS, CHROMIUM  # the same browser as the other page tests
from test_referee_pages_api import renege_hand as api_renege_hand  # one search for such a hand

from engine.cards import CODES
from engine.match import Match
from engine.simulate import random_deal
from tools.demo_terminal import scripted_event
from tools.service_soak import Server, endpoint, tokens_of

PLAYERS = ["Ann", "Bo", "Cy", "Di"]
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def serve(tmp_path, game):
    s = Server(tmp_path / "data", game)
    s.start()
    return s, tokens_of(s.data)


def seq_of(api):
    return api.get("/api/state").json()["seq"]


def wait_drawn(page, seq):
    """The table page's entry panel is drawn for log position ``seq`` (or later)."""
    page.wait_for_function(f"parseInt(document.getElementById('controls').dataset.seq || '0', 10) >= {seq}",
                           timeout=15000)


def scripted_hand(game, seed):
    """A hand of scripted players (hands known to the script only), with no single's exchange or fold."""
    for s in range(seed, seed + 200):
        rng = random.Random(s)
        mirror = Match(game, {}, PLAYERS)
        hand = mirror.hand
        events = [random_deal(hand, rng)]
        mirror.apply(events[0])
        while not hand.is_terminal():
            event, _ = scripted_event(hand, rng)
            mirror.apply(event)
            events.append(event)
        if all(e["event"] in ("deal", "bid", "declare", "play") for e in events):
            return events
    raise AssertionError("no plain hand")


def test_a_whole_hand_entered_by_taps_on_a_phone(tmp_path, browser):
    server, tokens = serve(tmp_path, "bid_euchre")
    try:
        table = httpx.Client(base_url=server.url, headers={"Authorization": "Bearer " + tokens["table"]}, timeout=10)
        assert table.post("/api/matches", json={"players": PLAYERS}).status_code == 200
        page = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
        page.goto(f"{server.url}/table?token={tokens['table']}")
        page.wait_for_selector("#conn.ok", timeout=15000)
        wait_drawn(page, seq_of(table))
        # the entry panel first on a phone; nothing wider than the screen
        assert page.locator("#controls").bounding_box()["y"] < page.locator("#seats").bounding_box()["y"]
        # only what fits: a Bid Euchre table without a machine has no machine or Pitch button
        text = page.inner_text("#controls")
        assert "machine" not in text and "rob" not in text and "Refill" not in text
        taps = 0
        for event in scripted_hand("bid_euchre", 1):
            seq = seq_of(table)
            wait_drawn(page, seq)
            kind = event["event"]
            if kind == "deal":
                button = page.locator('#actions button[data-kind="deal"]')
                assert button.count() == 1
            elif kind == "bid":
                button = page.locator(f'#actions button[data-kind="bid"][data-value="{event["bid"]}"]')
            elif kind == "declare":
                value = event["trump"] or f"nt-{event['direction']}"
                button = page.locator(f'#actions button[data-kind="declare"][data-value="{value}"]')
            else:
                assert page.locator(f'#seat-picker button.chosen[data-seat="{event["seat"]}"]').count() == 1
                button = page.locator(f'#cards button[data-card="{event["card"]}"]')
                assert button.get_attribute("data-legal") == "true"
            button.tap()
            taps += 1
            page.wait_for_function(f"document.getElementById('controls').dataset.seq > {seq}", timeout=15000)
            assert page.inner_text("#error") == "", page.inner_text("#error")
        assert taps == 1 + 4 + 1 + 24  # one tap per event: no typing
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        state = table.get("/api/state").json()
        assert state["hand"]["number"] == 2 and len(state["history"]) == 1
        # the same figures, with names, on the table page and the scoreboard
        board = browser.new_page()
        board.goto(f"{server.url}/scoreboard?token={tokens['public']}")
        board.wait_for_selector('table.explain[data-hand="1"]', timeout=15000)
        page.wait_for_selector('table.explain[data-hand="1"]', timeout=15000)
        figures = []
        for p in (page, board):
            rows = p.locator('table.explain[data-hand="1"] tr.side')
            figures.append([(rows.nth(i).locator("td").nth(0).inner_text(), rows.nth(i).locator("td.took").inner_text(),
                             rows.nth(i).locator("td.scored").inner_text()) for i in range(rows.count())])
        x = state["explained"][0]
        expect = [(s["name"], str(s["took"]) if s["took"] == s["after_penalty"] else
                   f"{s['took']} ({s['after_penalty']} after penalty)",
                   f"{'+' if s['scored'] > 0 else ''}{s['scored']}") for s in x["sides"]]
        assert figures[0] == figures[1] == expect
        assert "Ann & Cy" in board.inner_text("#score") and "seat" not in board.inner_text("body")
        assert [c.inner_text() for c in page.locator(".total").all()] == [str(v) for v in state["scores"]]
        # the console keeps the finished hand's events, by hand
        console = browser.new_page()
        console.goto(f"{server.url}/director?token={tokens['director']}")
        console.wait_for_selector("#events tr", timeout=15000)
        assert console.locator("#event-hand option").all_inner_texts() == ["1 (done)"]
        assert console.locator("#events tr").count() == 30
    finally:
        server.stop()


def test_start_a_match_with_options_from_the_table_page(tmp_path, browser):
    server, tokens = serve(tmp_path, "pitch")
    try:
        page = browser.new_page(viewport=PHONE, has_touch=True)
        page.goto(f"{server.url}/table?token={tokens['table']}")
        page.wait_for_selector("#mf-start", timeout=15000)
        assert page.input_value("#mf-game") == "pitch"  # the served game
        page.select_option('select[data-option="players"]', "5")
        page.fill('input[data-option="target"]', "32")
        page.select_option('select[data-option="rob_to_partner"]', "true")
        page.fill("#mf-players", "Ann, Bo, Cy, Di, Ed")
        page.tap("#mf-start")
        page.wait_for_selector('#actions button[data-kind="deal"]', timeout=15000)
        director = httpx.get(f"{server.url}/api/state", headers={"Authorization": "Bearer " + tokens["director"]})
        st = director.json()
        assert st["game"] == "pitch" and st["players"] == ["Ann", "Bo", "Cy", "Di", "Ed"]
        assert st["options"]["target"] == 32 and st["options"]["players"] == 5 and st["options"]["rob_to_partner"]
        # a bad option value is said next to the button, in words
        page2 = browser.new_page()
        page2.goto(f"{server.url}/director?token={tokens['director']}")
        page2.wait_for_selector("#mf-start", timeout=15000)
        page2.fill('input[data-option="target"]', "0")
        page2.click("#mf-start")
        page2.wait_for_function("document.querySelector('#match-form .error').textContent.includes('target')",
                                timeout=15000)
        assert "from 1 to 500" in page2.inner_text("#match-form .error")
    finally:
        server.stop()


def renege_hand():
    """A Bid Whist hand of scripted players in which a renege is proven and established before the last tricks:
    the API tests' hand, with its first proven call."""
    events, hand, established_at = api_renege_hand("bid_whist")
    return events, next(r for r in hand.reneges if r.proof is not None), established_at


def test_rulings_and_the_hidden_proof_on_the_pages(tmp_path, browser):
    server, tokens = serve(tmp_path, "bid_whist")
    try:
        api = httpx.Client(base_url=server.url, headers={"Authorization": "Bearer " + tokens["director"]}, timeout=10)
        assert api.post("/api/matches", json={"players": PLAYERS}).status_code == 200
        events, call, established_at = renege_hand()
        proof = CODES[call.proof]
        for event in events[:established_at]:
            path, body = endpoint(event)
            assert api.post(path, json=body).status_code == 200
        # mid-hand: the public page names the call, whom and which trick, and not the proof card
        public = browser.new_page()
        public.goto(f"{server.url}/table?token={tokens['public']}")
        alert = public.wait_for_selector(f'#alerts .renege[data-seat="{call.seat}"]', timeout=15000)
        text = alert.inner_text()
        assert PLAYERS[call.seat] in text and f"trick {call.trick}" in text and "when the hand ends" in text
        assert proof not in text and proof not in public.inner_text("#alerts")
        assert public.locator("#controls").is_hidden()
        # the director sees the proof at once
        console = browser.new_page()
        console.goto(f"{server.url}/director?token={tokens['director']}")
        box = f'.call[data-seat="{call.seat}"][data-trick="{call.trick}"]'
        console.wait_for_selector(f"{box}.proven", timeout=15000)
        assert proof in console.inner_text(box)
        for event in events[established_at:]:
            path, body = endpoint(event)
            assert api.post(path, json=body).status_code == 200
        public.wait_for_function(f"document.getElementById('alerts').textContent.includes('holding {proof}')",
                                 timeout=15000)
        # each call once, not twice, at the hand's end
        alerts = httpx.get(f"{server.url}/api/state", headers={"Authorization": "Bearer " + tokens["public"]}).json()
        keys = {(c["hand"], c["seat"], c["trick"]) for c in alerts["alerts"]}
        assert public.locator("#alerts .renege").count() == len(alerts["alerts"]) == len(keys)
        # reject without a reason: said next to the button, in words
        console.click(f"{box} button.reject")
        console.wait_for_function(f"document.querySelector('{box} .error').textContent.includes('reason')",
                                  timeout=15000)
        console.fill("#why", "the led card was misread")
        console.click(f"{box} button.reject")
        console.wait_for_selector(f"{box}.rejected", timeout=15000)
        assert console.locator(f"{box} button.accept").count() == 0  # decided: no accept/reject again
        assert "REJECTED by director" in console.inner_text(box)
        # undo the ruling from the call: the call is open again; accept it
        console.click(f"{box} button.undo-ruling")
        console.wait_for_selector(f"{box}.proven button.accept", timeout=15000)
        console.click(f"{box} button.accept")
        console.wait_for_selector(f"{box} .decided", timeout=15000)
        assert "ACCEPTED" in console.inner_text(box)
        # the rulings are listed with the corrections, each undoable: undo the accept from there
        rows = console.locator('#corrections tr[data-kind="ruling"]')
        assert rows.count() == 2
        accept_row = rows.nth(0)
        assert "accept" in accept_row.inner_text()
        accept_row.locator("button.undo").click()
        console.wait_for_selector(f"{box}.proven button.accept", timeout=15000)
        st = api.get("/api/state").json()
        c = next(x for x in st["calls"] if (x["seat"], x["trick"]) == (call.seat, call.trick))
        assert c["decided"] is None and not c.get("rejected")
    finally:
        server.stop()


def test_the_console_shows_a_qr_code_per_page_to_join_the_table(tmp_path, browser):
    """Issue 12 item 6: the director's console shows each page's link with its token and its QR code (the tablets
    scan it); the links are the director's only (the table's token cannot read them)."""
    server, tokens = serve(tmp_path, "bid_euchre")
    try:
        page = browser.new_page()
        page.goto(f"{server.url}/director?token={tokens['director']}")
        page.wait_for_selector("#join .qr svg", timeout=15000)
        links = page.eval_on_selector_all("#join a.join-link", "els => els.map(e => e.href)")
        assert [link.split("?")[0].rsplit("/", 1)[1] for link in links] == ["table", "scoreboard", "director"]
        assert links[0].endswith(f"token={tokens['table']}") and links[1].endswith(f"token={tokens['public']}")
        assert page.locator("#join .qr svg").count() == 3
        refused = httpx.get(f"{server.url}/api/join", headers={"Authorization": "Bearer " + tokens["table"]})
        assert refused.status_code == 403
    finally:
        server.stop()
