"""``cardref serve``: the referee service of a real table (its crash soak is a tool: ``cardref soak``).

``serve`` binds its port first (``--port 0`` picks a free one), then prints one line ``listening on URL`` and the
pages' addresses with each role's token, so a script (the crash tests) can read where it is.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cli.errors import UserError
from engine.match import GAMES as ALL_GAMES

if TYPE_CHECKING:
    from cli.main import Commands

GAMES = tuple(ALL_GAMES)


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "cardref" / "table"


def register(commands: Commands) -> None:
    p = commands.add("serve", help="run the referee service of a real table (pages, API, event log)")
    p.add_argument("--game", default="bid_whist", choices=GAMES, help="the table's game (default bid_whist)")
    p.add_argument("--dealer", metavar="PATH", help="the dealing machine's serial device (none: dealt by hand)")
    p.add_argument("--dealer-key", metavar="FILE", help="the dealing machine's pairing key (default: the one "
                                                         "`cardref dealer` uses)")
    p.add_argument("--camera", metavar="INDEX", help="the overhead camera's index, or a video file or a folder of "
                                                     "frames (none: plays entered on the page)")
    p.add_argument("--deck", metavar="DIR|FILE", help="with --camera: the table's deck: a folder of card images "
                                                      "(one per card) or the file `cardref vision enroll` wrote "
                                                      "(default: the recogniser's generic mode)")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1; with --lan 0.0.0.0)")
    p.add_argument("--lan", action="store_true",
                   help="open the table to the club's network: listen on every address, print each page's link on "
                        "this machine's network address with a QR code to scan from the tablets")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--data", metavar="DIR", type=Path, default=None,
                   help=f"the private directory of the event log and tokens (default {default_data_dir()})")
    p.add_argument("--players", metavar="NAMES", help="comma-separated names: start a match if none is running "
                                                      "(five names for five-handed pitch)")
    p.add_argument("--option", metavar="NAME=VALUE", action="append", default=[],
                   help="an option of the match --players starts, e.g. target=32, reverse=true (repeat it; the "
                        "options of each game are in docs/rules.md)")
    p.add_argument("--restore", metavar="BACKUP", type=Path,
                   help="first put this backup of the event log (made by `cardref backup`) in place of the data "
                        "folder's log (the old one is moved aside, never deleted)")
    p.add_argument("--insecure", action="store_true",
                   help="serve plain HTTP on a network address (tokens then travel in clear text); without it, "
                        "--lan and any address but loopback are served over HTTPS with the table's own certificate")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    data = args.data or default_data_dir()
    if args.dealer and not Path(args.dealer).exists():
        raise UserError(f"--dealer {args.dealer}: no such device")
    if args.camera is not None and not args.camera.isdigit() and not Path(args.camera).exists():
        raise UserError(f"--camera {args.camera!r}: a camera index (0 for the first camera), a video file or a "
                        "folder of frames")
    if args.deck and not Path(args.deck).exists():
        raise UserError(f"--deck {args.deck}: no such folder or file")
    if not 0 <= args.port <= 65535:
        raise UserError(f"--port {args.port}: a port is 0..65535")
    names, options = match_args(args)
    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    # The links carry the address the tablets reach: the one given, or with --lan on every address, this machine's.
    join_host = lan_address() if args.lan and host in ("0.0.0.0", "::") else host
    # The dealing machine's driver and the camera pipeline are being built beside this service and their APIs are not
    # final: until they are joined here, the table runs in its degraded modes (hands unknown, plays on the page),
    # which the pages show.
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, args.port))
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{args.port}: {exc.strerror}") from None
    sock.listen(64)
    try:
        return _serve(args, data, sock, host, join_host, names, options)
    finally:
        sock.close()


def _serve(args: argparse.Namespace, data: Path, sock: socket.socket, host: str, join_host: str,
           names: list[str] | None, options: dict[str, object]) -> int:
    notes: list[str] = []
    port = sock.getsockname()[1]

    import uvicorn

    from referee.app import create_app
    from referee.eventlog import DataFolderError, private_dir, restore
    from referee.http_guard import uvicorn_config
    from referee.tls import ensure_certificate, is_loopback, is_wildcard, local_addresses

    try:
        if args.restore is not None:
            last, aside = restore(private_dir(data), args.restore)
            notes.append(f"restored the event log from {args.restore} (rows up to {last})"
                         + (f"; the old log is kept in {aside}" if aside else ""))
        app = create_app(data, game=args.game, dealer="none", camera="none")
    except DataFolderError as exc:
        raise UserError(str(exc)) from None
    session = app.state.session
    # The log remembers the devices of the last run; this run says what this table has now.
    for device, given in (("dealer", args.dealer), ("camera", args.camera)):
        if given is None and session.devices.get(device) != "none":
            session.set_device(device, "none", "system", "serve", f"started without a {device}")
    if args.dealer:
        notes.append(start_dealer(app, args.dealer, args.dealer_key))
    if args.camera is not None:
        notes.append(start_camera(session, args.camera, args.deck))
    if names is not None:
        notes.append(start_match(session, args.game, names, options))
    # What the tablets will type: the machine's real addresses for a wildcard host, never "0.0.0.0".
    if args.lan or not is_wildcard(host):
        hosts = [join_host]
    else:
        hosts = local_addresses() or ["127.0.0.1"]
    ssl: dict[str, str] = {}
    scheme = "http"
    if not is_loopback(host):
        # Off this machine the addresses carry the tokens over the network: HTTPS, or a warning that says so.
        if args.insecure:
            notes.append("WARNING: plain HTTP on a network address: every page's address carries its token, and "
                         "anyone on this network can read them (the director's too); drop --insecure for HTTPS")
        else:
            try:
                cert = ensure_certificate(data, hosts)
            except DataFolderError as exc:
                raise UserError(str(exc)) from None
            ssl = {"ssl_certfile": str(cert.cert), "ssl_keyfile": str(cert.key)}
            scheme = "https"
            app.state.tls_fingerprint = cert.fingerprint
            notes.append(f"HTTPS with this table's own certificate: a browser asks once to trust it; its SHA-256 "
                         f"fingerprint is {cert.fingerprint}")
    urls = [f"{scheme}://{url_host(h)}:{port}" for h in hosts]
    url = urls[0]
    if args.lan:
        app.state.join_url = url
    tokens = app.state.tokens
    print(f"cardref serve: {args.game.replace('_', ' ')}; event log in {data} (private)")
    for note in notes:
        print(f"  note: {note}")
    if args.lan:
        print_qr_codes(url, tokens)
    for other in urls[1:]:
        print(f"  also at:      {other}")
    print(f"  table page:   {url}/table?token={tokens['table']}")
    print(f"  scoreboard:   {url}/scoreboard?token={tokens['public']}")
    print(f"  director:     {url}/director?token={tokens['director']}   (keep this one to yourself)")
    print(f"  API docs:     {url}/docs")
    print(f"listening on {url}", flush=True)
    # Idle and slow clients are closed and open connections capped (referee.http_guard), so they cannot use up the
    # service's file descriptors; no access log (a page's address carries its token).
    config = uvicorn_config(app, **ssl)
    server = uvicorn.Server(config)
    server.run(sockets=[sock])
    return 0


def match_args(args: argparse.Namespace) -> tuple[list[str] | None, dict[str, object]]:
    """The names and options of the match to start (``--players``, ``--option``), checked before anything runs.
    Five names for pitch mean five-handed pitch (``players=5``)."""
    from engine.options import OptionError, from_texts

    given: dict[str, str] = {}
    for item in args.option:
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise UserError(f"--option {item!r}: write it NAME=VALUE, e.g. --option target=32")
        if name.strip() in given:
            raise UserError(f"--option {name.strip()}: given twice")
        given[name.strip()] = value
    if not args.players:
        if given:
            raise UserError("--option: the options are those of the match --players starts; give --players too")
        return None, {}
    names = [n.strip() for n in args.players.split(",") if n.strip()]
    if args.game == "pitch" and len(names) == 5:
        given.setdefault("players", "5")
    try:
        options = from_texts(args.game, given)
    except OptionError as exc:
        raise UserError(f"--option: {exc}") from None
    return names, options


def start_match(session: object, game: str, names: list[str], options: dict[str, object]) -> str:
    """The match of ``--players``, unless one is being played (a restart after a power cut goes on with it)."""
    from referee.table import Refused, TableSession

    assert isinstance(session, TableSession)
    cur = session.current
    if cur is not None and not cur.match.is_terminal():
        return (f"match {session.match_number(cur.id)} is being played: it goes on ({', '.join(cur.match.players)});"
                " --players and --option not used")
    try:
        st = session.create_match(game, options, names, 0, "director", "operator")
    except Refused as exc:
        raise UserError(f"--players/--option: {exc.reason}") from None
    changed = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
    changed = changed or "the defaults"
    return f"match {session.match_number(st.id)} started: {', '.join(names)}; options {changed}"


def lan_address() -> str:
    """This machine's address on the club's network, found without sending anything: a UDP socket 'connected' to
    an outside address only picks the interface the route would use (no packet leaves)."""
    for probe in ("192.0.2.1", "10.255.255.255"):  # TEST-NET-1 (never routed), then any private route
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                address = s.getsockname()[0]
        except OSError:
            continue
        if not address.startswith("127.") and address != "0.0.0.0":
            return str(address)
    raise UserError("--lan: this machine has no network address: join the club's Wi-Fi (or plug in the cable) "
                    "and start again, or give --host ADDRESS")


def url_host(host: str) -> str:
    """``host`` as written in a link (an IPv6 address in brackets; 'every address' as this machine's name)."""
    if host in ("0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def print_qr_codes(url: str, tokens: dict[str, str]) -> None:
    """Each page's QR code, to scan from the tablets (the director's console shows the same: 'Join this table')."""
    from referee.api.join import join_links, qr_text

    for link in join_links(url, tokens):
        print(f"  {link['page']}: {link['what']}")
        print(qr_text(link["url"]))


def start_dealer(app: object, port: str, key_file: str | None) -> str:
    """Join the dealing machine; one that cannot be reached leaves the table dealing by hand, its status lost."""
    from referee.dealer import DealerBridge

    session = app.state.session  # type: ignore[attr-defined]
    try:
        from cli.dealer import default_key_file
        from dealer_protocol.security import load_key
        from firmware_bridge.simple import SimpleDealer

        key = load_key(key_file or default_key_file())
        machine = SimpleDealer.open(port, key)
    except Exception as exc:  # noqa: BLE001 - any failure of the machine leaves the table dealing by hand
        session.set_device("dealer", "lost", "system", "serve", f"cannot open the dealing machine {port}: {exc}")
        return f"dealing machine {port}: cannot be opened ({exc}); deal by hand"
    app.state.dealer_bridge = DealerBridge(session, machine)  # type: ignore[attr-defined]
    session.set_device("dealer", "ok", "system", "serve", f"dealing machine {port}")
    return f"dealing machine {port}: joined (the table page's 'Deal with the machine')"


def start_camera(session: object, source: str, deck: str | None) -> str:
    """The camera thread: frames to the play detector to the table. A camera that cannot be opened leaves the
    table in its no-camera mode, its status 'lost' on the pages."""
    import threading

    from referee.camera import open_camera
    from referee.table import TableSession

    assert isinstance(session, TableSession)
    try:
        from vision.play import open_stream

        frames = open_stream(source)
        bridge = open_camera(session, source, deck)
    except Exception as exc:  # noqa: BLE001 - any failure of the camera leaves the table running without it
        session.set_device("camera", "lost", "system", "serve", f"cannot open camera {source}: {exc}")
        return f"camera {source}: cannot be opened ({exc}); enter plays on the page"
    session.set_device("camera", "ok", "system", "serve", f"camera {source}")
    stop = threading.Event()
    threading.Thread(target=bridge.run, args=(frames, stop), name="camera", daemon=True).start()
    note = f"camera {source}: reading plays" + (f" with the deck {deck}" if deck else " (generic mode)")
    if not bridge.reads_jokers:
        note += "; jokers are read as unsure (no enrolled jokers): the director enters them"
    return note


def main(argv: list[str] | None = None) -> int:
    """``python -m cli.serve serve ...``: the service alone, without loading the other parts' commands or the
    tools (the camera's imports take seconds; a restart after a power cut should not)."""
    from cli.main import main as cardref_main

    return cardref_main(argv, modules=("cli.serve",), tools=False)


if __name__ == "__main__":
    sys.exit(main())
