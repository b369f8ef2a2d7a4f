"""The pages in a real headless Chromium (Debian's ``chromium``, driven by Playwright): a hand is played through the
API of a real ``cardref serve`` process, and the renege alert appears on the table page, live; the director's
console shows the call with its proof and evidence."""

import random
import re
import shutil

import httpx
import pytest
from playwright import sync_api

from engine.match import Match
from engine.simulate import random_deal
from tools.demo_terminal import scripted_event
from tools.service_soak import Server, endpoint, tokens_of

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


def hand_with_a_renege():
    """The first hand (of scripted players, seeds tried in order) in which a renege is proven."""
    for seed in range(1, 200):
        rng = random.Random(seed)
        mirror = Match("bid_whist", {}, ["Ann", "Bo", "Cy", "Di"])
        hand = mirror.hand
        events = [random_deal(hand, rng)]
        mirror.apply(events[0])
        while not hand.is_terminal():
            event, _ = scripted_event(hand, rng)
            mirror.apply(event)
            events.append(event)
        if hand.reneges:
            return events, hand
    raise AssertionError("no seed gave a renege")


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "data", "bid_whist")
    s.start()
    yield s
    s.stop()


def test_renege_alert_appears_on_the_table_page(server, tmp_path):
    tokens = tokens_of(server.data)
    director = {"Authorization": "Bearer " + tokens["director"]}
    events, hand = hand_with_a_renege()
    call = hand.reneges[0]
    with httpx.Client(base_url=server.url, headers=director, timeout=10) as api:
        assert api.post("/api/matches", json={"game": "bid_whist", "players": ["Ann", "Bo", "Cy", "Di"]}).is_success
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            try:
                page = browser.new_page()
                page.goto(f"{server.url}/table?token={tokens['public']}")
                page.wait_for_selector("#conn.ok", timeout=15000)
                assert page.locator("#alerts .renege").count() == 0
                console = browser.new_page()
                console.goto(f"{server.url}/director?token={tokens['director']}")
                console.wait_for_selector("#conn.ok", timeout=15000)
                for event in events:
                    path, body = endpoint(event)
                    r = api.post(path, json=body)
                    assert r.status_code == 200, r.text
                alert = page.wait_for_selector("#alerts .renege", timeout=15000)
                text = alert.inner_text()
                assert "RENEGE" in text and ["Ann", "Bo", "Cy", "Di"][call.seat] in text
                assert f"trick {call.trick}" in text
                # The public page shows no card that was not played (the proof is shown only once played).
                hidden = {c for h in events[0]["hands"] for c in h} | set(events[0]["kitty"])
                played = {e["card"] for e in events if e["event"] == "play"}
                shown = set(page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)"))
                assert shown <= played and not (shown & (hidden - played))
                proven = console.wait_for_selector(".call.proven", timeout=15000)
                assert "proof" in proven.inner_text() and "event" in proven.inner_text()
                assert console.locator("#locations tr").count() > 1
            finally:
                browser.close()
    # The service prints no card: its output is a log an operator or anyone at the screen can read.
    printed = "".join(line for line in server.output if "token=" not in line)
    assert not set(re.findall(r"\b(?:[2-9TJQKA][SHDC]|BJ|LJ)\b", printed)), printed


def test_the_pitch_machine_buttons_call_the_service(tmp_path):
    """The table page's refill / rob buttons reach /api/pitch/*: with no machine at this table, the page shows the
    service's answer (post the cards by hand)."""
    server = Server(tmp_path / "data", "pitch")
    server.start()
    try:
        tokens = tokens_of(server.data)
        r = httpx.post(f"{server.url}/api/matches", json={"game": "pitch"}, timeout=10,
                       headers={"Authorization": "Bearer " + tokens["director"]})
        assert r.status_code == 200, r.text
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
            try:
                page = browser.new_page()
                page.goto(f"{server.url}/table?token={tokens['table']}")
                page.wait_for_selector("#conn.ok", timeout=15000)
                page.wait_for_selector("#seat option", state="attached", timeout=15000)
                page.click("#refill-machine")
                page.wait_for_function("document.getElementById('error').textContent.includes('no dealing machine')",
                                       timeout=15000)
                assert "refill" in page.inner_text("#error")
                page.click("#rob-machine")
                page.wait_for_function("document.getElementById('error').textContent.includes(\"rob's cards\")",
                                       timeout=15000)
            finally:
                browser.close()
    finally:
        server.stop()
