"""``cardref demo --web``: a simulated table played through the service, live on its pages.

The service runs as ``cardref serve`` would (a fresh private data directory); four scripted players (those of the
terminal demo, who now and then renege) play a match through the REST API at a watchable pace: the deals as the
dealing machine would post them (hands known), bids, declarations and the game's other events as the table's
tablet would, each card as the camera would. Open the printed table page to watch, the director's console to see
each call with its proof. It stops by itself a little after the match ends, or on Ctrl-C.

Not yet here (their APIs are not final): the simulated dealing machine on a pseudo-terminal and the synthetic camera
rendering each card; the events they would produce are posted directly.
"""

from __future__ import annotations

import random
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from engine.hand import CHANCE
from engine.match import Match
from engine.simulate import random_deal
from referee.soak import endpoint
from referee.terminal_demo import PLAYERS, scripted_event


def run(game: str = "bid_whist", seed: int = 7, port: int = 8000, pace: float = 0.6, linger: float = 20.0,
        max_hands: int = 40) -> int:
    """Serve on 127.0.0.1:``port`` and play; returns the exit code."""
    import uvicorn

    from referee.app import create_app
    from referee.cli import UserError

    tmp = tempfile.TemporaryDirectory(prefix="cardref-demo-")
    app = create_app(Path(tmp.name) / "data", game=game, dealer="ok", camera="ok")
    tokens = app.state.tokens
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        raise UserError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror} (try --port)") from None
    sock.listen(64)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}"
    print(f"cardref demo --web: a simulated {game.replace('_', ' ')} table, seed {seed}")
    print(f"  watch the table:      {url}/table?token={tokens['public']}")
    print(f"  director's console:   {url}/director?token={tokens['director']}")
    print(f"  scoreboard:           {url}/scoreboard?token={tokens['public']}")
    print(f"  API docs:             {url}/docs")
    print("Ctrl-C stops it.", flush=True)
    try:
        play_match(url, tokens, game, seed, pace, max_hands)
        print(f"The match is over; the pages stay up {linger:.0f} s more.", flush=True)
        time.sleep(linger)
    except KeyboardInterrupt:
        print("\nstopped")
    finally:
        server.should_exit = True
        thread.join(10)
        tmp.cleanup()
    return 0


def play_match(url: str, tokens: dict[str, str], game: str, seed: int, pace: float, max_hands: int) -> None:
    """The scripted table: deals as the dealing machine, the rest as the tablet and the camera."""
    rng = random.Random(seed)
    names = PLAYERS[:4]
    machine = {"Authorization": "Bearer " + tokens["director"]}
    table = {"Authorization": "Bearer " + tokens["table"]}
    with httpx.Client(base_url=url, timeout=10) as client:
        first = rng.randrange(4)
        r = client.post("/api/matches", headers=machine, json={"game": game, "players": names,
                                                               "first_dealer": first})
        r.raise_for_status()
        mirror = Match(game, {}, names, first)
        while not mirror.is_terminal() and len(mirror.hands) <= max_hands:
            hand = mirror.hand
            if hand.current_player() == CHANCE:
                if len(mirror.hands) == max_hands and hand.number == max_hands and hand.events:
                    break
                event: dict[str, Any] = random_deal(hand, rng)
                print(f"Hand {hand.number}: {names[hand.dealer]} deals.", flush=True)
                headers = machine
            else:
                event, _ = scripted_event(hand, rng)
                headers = table
            path, body = endpoint(event)
            r = client.post(path, json=body, headers=headers)
            if r.status_code != 200:
                raise RuntimeError(f"{path}: {r.status_code} {r.text}")
            before = len(hand.reneges)
            mirror.apply(event)
            for c in hand.reneges[before:]:
                print(f"  RENEGE called on {names[c.seat]} at trick {c.trick} (hand {hand.number})", flush=True)
            if hand.is_terminal():
                print(f"  hand over: score {hand.score}; totals {mirror.scores}", flush=True)
            time.sleep(pace if event["event"] == "play" else pace / 2)
