"""``cardref demo --web``: a whole table simulated end to end, live on the service's pages.

- the service, as ``cardref serve`` runs it (a fresh private data directory);
- the simulated dealing machine on a pseudo-terminal (``hardware.sim``), joined through the host driver: each hand
  is dealt by ``POST /api/deal/machine``, the hands as the machine read them;
- four scripted players (those of the terminal demo, who now and then renege): bids, declarations and the game's
  other events come from the table's tablet (the REST API, the table's token);
- the synthetic camera: each trick is rendered frame by frame (``tools.synth``) with a deck drawn from nothing
  (``tools.drawn_deck``, so a bare clone has one) and fed to the play detector, whose reads become the plays
  (``referee.camera``); a card it cannot read is entered by the demo's director, as a real one would.

Open the printed table page to watch, the director's console to see each call with its proof and its camera frame.
It stops by itself after ``max_hands`` hands (the match is played to a target the demo does not reach first), or on
Ctrl-C; ``linger`` keeps the pages up that many seconds more.
"""

from __future__ import annotations

import os
import random
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from engine.hand import CHANCE, PLAY
from engine.match import Match
from engine.record import replay
from tools import demo_terminal as terminal_demo
from tools import http_client
from tools.demo_terminal import PLAYERS, scripted_event
from tools.service_soak import endpoint

# The scripted players slip more often here than in the terminal demo: a short demo should show a renege call.
RENEGE_RATE = 0.08

# A target the demo's hands do not reach: the match goes on for every hand shown (a renege's penalty alone may
# give a side seven points, Bid Whist's default target, in the first hand).
TARGETS = {"bid_whist": 100, "bid_euchre": 500, "pitch": 500}


def run(game: str = "bid_whist", seed: int = 7, port: int = 8000, pace: float = 0.5, linger: float = 0.0,
        max_hands: int = 3, camera: bool = True) -> int:
    """Serve on 127.0.0.1:``port`` and play; returns the exit code. ``camera=False``: plays entered on the tablet
    (the rendering and reading of every trick is most of the demo's time)."""
    import uvicorn

    from cli.errors import UserError
    from referee.app import create_app

    tmp = tempfile.TemporaryDirectory(prefix="cardref-demo-")
    app = create_app(Path(tmp.name) / "data", game=game)
    session, tokens = app.state.session, app.state.tokens
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        raise UserError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror} (try --port)") from None
    sock.listen(64)
    port = sock.getsockname()[1]
    sim, bridge = None, None
    notes = []
    try:
        sim, note = start_machine(app, game, seed)
        notes.append(note)
        if camera:
            bridge, note = start_camera(session)
            notes.append(note)
        else:
            notes.append("camera: none; plays entered on the tablet")
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, ws="websockets-sansio"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        while not server.started and thread.is_alive():
            time.sleep(0.02)
        url = f"http://127.0.0.1:{port}"
        print(f"cardref demo --web: a simulated {game.replace('_', ' ')} table, seed {seed}, {max_hands} hands")
        for note in notes:
            print(f"  {note}")
        print(f"  watch the table:      {url}/table?token={tokens['public']}")
        print(f"  director's console:   {url}/director?token={tokens['director']}")
        print(f"  scoreboard:           {url}/scoreboard?token={tokens['public']}")
        print("Ctrl-C stops it.", flush=True)
        try:
            play_match(url, tokens, game, seed, pace, max_hands, bridge)
            if bridge is not None:
                print(f"The camera read {len(bridge.plays)} plays; the director entered the cards it was unsure "
                      "of (see the console).", flush=True)
            if linger > 0:
                print(f"Done; the pages stay up {linger:.0f} s more.", flush=True)
                time.sleep(linger)
            else:
                print(f"Done: {max_hands} hand{'s' if max_hands != 1 else ''} played; the service stops.", flush=True)
        except KeyboardInterrupt:
            print("\nstopped")
        finally:
            server.should_exit = True
            thread.join(10)
    finally:
        # The host side first, so that closing the simulator is not taken for a pulled cable.
        machine = app.state.dealer_bridge
        if machine is not None:
            machine.dealer.close()
        if sim is not None:
            sim.close()
        tmp.cleanup()
    return 0


def start_machine(app: Any, game: str, seed: int) -> tuple[Any, str]:
    """The simulated dealing machine on a pty, joined to the table; (the simulator, a note)."""
    from engine.match import deck_for
    from firmware_bridge.driver import Timeouts
    from firmware_bridge.simple import SimpleDealer
    from hardware.sim import SimulatedDealer
    from referee.dealer import DealerBridge

    key = os.urandom(32)
    sim = SimulatedDealer(key, seed=seed, fast=True, deck=deck_for(game)).start()
    machine = SimpleDealer.open(sim.path, key, timeouts=Timeouts.fast())
    app.state.dealer_bridge = DealerBridge(app.state.session, machine)
    app.state.session.set_device("dealer", "ok", "system", "demo", f"simulated dealing machine on {sim.path}")
    return sim, f"dealing machine: simulated on {sim.path}"


def start_camera(session: Any) -> tuple[Any, str]:
    """The synthetic camera's play detector joined to the table, its deck drawn by ``tools.drawn_deck``."""
    from referee.camera import CameraBridge
    from tools.drawn_deck import drawn_deck
    from vision import deck as decklib
    from vision import play, recognise

    images = drawn_deck()
    enrolled = decklib.enroll_images(images, "drawn", "tools/drawn_deck.py")
    bridge = CameraBridge(session, play.PlayDetector(recognise.Recogniser(enrolled)))
    bridge.images = images  # type: ignore[attr-defined]
    session.set_device("camera", "ok", "system", "demo", "synthetic camera, drawn deck")
    return bridge, ("camera: synthetic, each trick rendered frame by frame and read by the play detector; the deck "
                    "is drawn by the demo itself (tools/drawn_deck.py: plain standard-index cards)")


def play_match(url: str, tokens: dict[str, str], game: str, seed: int, pace: float, max_hands: int,
               camera: Any) -> None:
    """The scripted table."""
    rng = random.Random(seed)
    terminal_demo.RENEGE_RATE = RENEGE_RATE  # read by scripted_event at each call
    names = PLAYERS[:4]
    director = {"Authorization": "Bearer " + tokens["director"]}
    table = {"Authorization": "Bearer " + tokens["table"]}
    with http_client.Client(base_url=url, timeout=30) as client:
        first = rng.randrange(4)
        client.post("/api/matches", headers=director, json={"game": game, "players": names, "first_dealer": first,
                                                            "options": {"target": TARGETS[game]}}).raise_for_status()
        mirror = sync(client, director)
        trick_no = 0
        while not mirror.is_terminal():
            hand = mirror.hand
            if hand.current_player() == CHANCE:
                if hand.number > max_hands:
                    return
                print(f"Hand {hand.number}: {names[hand.dealer]} deals with the machine.", flush=True)
                r = client.post("/api/deal/machine", headers=table)
                if r.status_code != 200:
                    print(f"  the machine: {r.json()['error']}", flush=True)
                    return
                mirror = sync(client, director)
                continue
            if hand.phase == PLAY and camera is not None and hand.trick is not None and not hand.trick.cards:
                # A whole trick: the players choose their cards (on a copy of the state), the camera sees them land.
                trick_no += 1
                play_trick(client, director, mirror, rng, camera, trick_no)
                mirror = report(client, director, mirror, names)
                time.sleep(pace)
                continue
            event, _ = scripted_event(hand, rng)
            path, body = endpoint(event)
            if event["event"] in ("draw", "rob") and game == "pitch":
                # The machine holds the pack: it deals the refill (the 6 - k due) or the rest to the seat's pocket.
                path, body = f"/api/pitch/{'refill' if event['event'] == 'draw' else 'rob'}", {"seat": event["seat"]}
            r = client.post(path, json=body, headers=table)
            if r.status_code != 200:
                raise RuntimeError(f"{path}: {r.status_code} {r.text}")
            mirror = report(client, director, mirror, names)
            time.sleep(pace if event["event"] == "play" else pace / 2)


def sync(client: http_client.Client, director: dict[str, str]) -> Match:
    """The match as the service has it (its record replayed)."""
    r = client.get("/api/export/record", headers=director)
    r.raise_for_status()
    return replay(r.text.splitlines())


def report(client: http_client.Client, director: dict[str, str], old: Match, names: list[str]) -> Match:
    """Sync with the service and print what happened: calls, the hand's end."""
    new = sync(client, director)
    for h in new.hands:
        before = old.hands[h.number - 1].reneges if h.number <= len(old.hands) else []
        for r in h.reneges[len(before):]:
            j = r.to_json()
            print(f"  RENEGE called on {names[r.seat]} at trick {r.trick} of hand {h.number}: played {j['card']} "
                  f"holding {j['proof']}", flush=True)
        if h.is_terminal() and (h.number > len(old.hands) or not old.hands[h.number - 1].is_terminal()):
            print(f"  hand {h.number} over: score {h.score}; totals {new.scores}", flush=True)
    return new


def play_trick(client: http_client.Client, director: dict[str, str], mirror: Match, rng: random.Random, camera: Any,
               trick_no: int) -> None:
    """Render the trick the players choose and feed it to the camera; what it cannot read, the director enters."""
    from tools import synth

    ahead = sync(client, director)
    hand = ahead.hand
    cards: list[tuple[int, str]] = []
    while hand.phase == PLAY and hand.trick is not None and len(hand.trick.cards) < len(hand.active):
        event, _ = scripted_event(hand, rng)
        ahead.apply(event)
        cards.append((event["seat"], event["card"]))
        if hand.trick is None or not hand.trick.cards:
            break
    if any(code in ("BJ", "LJ") for _, code in cards):
        seen: list[tuple[int, str]] = []  # jokers are not rendered into the scenes: the tablet enters this trick
    else:
        before = len(camera.plays)
        for frame, _ in synth.play_video(camera.images, [cards], seed=trick_no, fps=10, seats=mirror.n_players):
            camera.feed(frame)
        rows = {r.seq: r for r in camera.session.log.rows(after=0) if r.seq in set(camera.plays[before:])}
        seen = [(rows[s].event["seat"], rows[s].event["card"]) for s in camera.plays[before:] if s in rows]
    for seat, code in cards:
        if (seat, code) not in seen:
            # The camera was unsure (or there was no camera for it): the director enters the card.
            client.post("/api/play", json={"seat": seat, "card": code}, headers=director)
