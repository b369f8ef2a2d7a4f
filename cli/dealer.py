"""``cardref dealer``: run the simulated dealing machine, deal with a machine, soak the link, benchmark it.

``dealer deal`` prints what each pocket received: that is the operator's explicit request. Nothing here
logs card identities.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cli.args import probability
from cli.errors import UserError
from dealer_protocol.cards import parse_card
from dealer_protocol.security import load_key
from engine.match import GAMES, deal_pattern, deck_for
from firmware_bridge.driver import Timeouts
from firmware_bridge.errors import DealerError, DeckError

if TYPE_CHECKING:
    from cli.main import Commands

POCKET_NAMES = ("seat 0", "seat 1", "seat 2", "seat 3", "pocket 4")


def _user_error(message: str) -> Exception:
    return UserError(message)


def default_key_file() -> Path:
    """Where the pairing key lives unless ``--key-file`` or CARDREF_DEALER_KEY says otherwise."""
    env = os.environ.get("CARDREF_DEALER_KEY")
    if env:
        return Path(env)
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "cardref" / "dealer.key"


def _key(args: argparse.Namespace, *, create: bool) -> bytes:
    path = Path(args.key_file) if args.key_file else default_key_file()
    try:
        return load_key(path, create=create)
    except (OSError, ValueError) as exc:
        raise _user_error(f"--key-file: {exc}") from None


# dealer sim


def cmd_sim(args: argparse.Namespace) -> int:
    """Start the simulated machine on a pty and print its device path."""
    from hardware.emulated import EmulatedDealer, EmulatorError
    from hardware.machine import MECHANICAL_FAULTS, FaultRates, Timing
    from hardware.sim import SimulatedDealer

    key = _key(args, create=True)
    rates = FaultRates({k: args.fault_rate for k in MECHANICAL_FAULTS}) if args.fault_rate else None
    deck = deck_for(args.game) if args.game else None
    sim: SimulatedDealer | EmulatedDealer
    if args.firmware:
        # The real firmware in the emulator, the mechanism simulated on its pins (hardware/emulated.py).
        sim = EmulatedDealer(key, elf=args.firmware, seed=args.seed, deck=deck, fast=args.fast)
        try:
            sim.start()
        except EmulatorError as exc:
            raise _user_error(f"--firmware: {exc}") from None
        assert sim.machine is not None
        if rates is not None:
            sim.machine.set_rates(rates)
        what = f"the firmware {args.firmware} in an emulated ATmega2560"
    else:
        timing = Timing.fast() if args.fast else Timing()
        sim = SimulatedDealer(key, seed=args.seed, timing=timing, rates=rates, deck=deck, fast=args.fast).start()
        what = "dealing machine simulator"
    assert sim.path is not None and sim.machine is not None
    path = sim.path
    if args.link:
        link = Path(args.link)
        if link.is_symlink():
            link.unlink()
        elif link.exists():
            sim.close()
            raise _user_error(f"--link: {link} exists and is not a symlink; not replacing it")
        link.symlink_to(sim.path)
        path = str(link)
    print(path, flush=True)
    print(
        f"{what} on {sim.path} ({'fast' if args.fast else 'real'} timings, "
        f"{len(sim.machine.hopper)} cards in the hopper); Ctrl-C stops it",
        file=sys.stderr,
        flush=True,
    )
    try:
        if args.seconds:
            time.sleep(args.seconds)
        else:
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        sim.close()
        if args.link and Path(args.link).is_symlink():
            Path(args.link).unlink()
    return 0


# dealer deal


def read_board(path: str, game: str, players: int) -> list[tuple[str, int]]:
    """The (card, pocket) pairs of a board: the first ``deal`` event of a table record (CONVENTIONS.md),
    each seat's hand to its pocket and the kitty to pocket 4. UserError names the file, line and problem."""
    if game == "pitch":
        raise _user_error(
            "--board: a Pitch board keeps its pack in order in the machine, which a deal file "
            "cannot do; deal Pitch without --board"
        )
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as exc:
        raise _user_error(f"--board {path}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            raise _user_error(f"--board {path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(event, dict) or event.get("event") != "deal":
            continue
        hands = event.get("hands")
        if not isinstance(hands, list) or len(hands) != players:
            raise _user_error(f"--board {path}:{number}: 'hands' must list {players} hands")
        pockets = [*hands, event.get("kitty") or []]
        pairs: list[tuple[str, int]] = []
        for pocket, cards in enumerate(pockets):
            if not isinstance(cards, list):
                raise _user_error(f"--board {path}:{number}: pocket {pocket} is not a list of cards")
            for card in cards:
                try:
                    pairs.append((parse_card(str(card)) if card is not None else "", pocket))
                except ValueError as exc:
                    raise _user_error(f"--board {path}:{number}: {exc}") from None
                if card is None:
                    raise _user_error(f"--board {path}:{number}: pocket {pocket} has an unknown card (null)")
        faces = [c for c, _ in pairs]
        if sorted(faces) != sorted(deck_for(game)):
            twice = sorted({c for c in faces if faces.count(c) > 1})
            absent = sorted(set(deck_for(game)) - set(faces))
            raise _user_error(
                f"--board {path}:{number}: the board must name each card of the {game} deck once "
                f"(twice: {' '.join(twice) or 'none'}; absent: {' '.join(absent) or 'none'})"
            )
        return pairs
    raise _user_error(f"--board {path}: no deal event in the file")


def cmd_deal(args: argparse.Namespace) -> int:
    """Load and verify the game's deck, shuffle, deal the game's pattern (or a board), print each pocket."""
    from firmware_bridge.simple import SimpleDealer

    key = _key(args, create=False)
    try:
        pattern = deal_pattern(args.game, args.players)
    except ValueError as exc:
        raise _user_error(f"--players: {exc}") from None
    board = read_board(args.board, args.game, args.players) if args.board else None
    timeouts = Timeouts(connect=args.timeout)
    try:
        dealer = SimpleDealer.open(args.port, key, timeouts=timeouts)
    except DealerError as exc:
        raise _user_error(f"--port {args.port}: {exc}") from None
    deck = deck_for(args.game)
    progress = Progress(sys.stderr)
    dealer.on_busy(progress.busy)
    dealer.on_card(progress.card)
    try:
        progress.start(f"checking the deck ({len(deck)} cards)", len(deck))
        try:
            count = dealer.load(deck)
        except DeckError as exc:
            from referee.dealer import deck_check_text

            progress.end()
            raise _user_error(f"{deck_check_text(args.game, exc.detail)}\n  (the machine: {exc})") from None
        if board is not None:
            progress.start(f"dealing the board ({len(board)} cards)", len(board), cards=True)
            result = dealer.deal_file(board)
        else:
            if not args.no_shuffle:
                progress.start("shuffling", len(deck))
                dealer.shuffle()
            progress.start(f"dealing {sum(pattern)} cards", sum(pattern), cards=True)
            result = dealer.deal(pattern)
        progress.end()
    except DealerError as exc:
        progress.end()
        raise _user_error(str(exc)) from None
    finally:
        dealer.close()
    _print_pockets(result.pockets, result.state.hopper, pattern, args.game, args.players)
    print(f"deck verified: {count} cards read", file=sys.stderr)
    return 0


class Progress:
    """How far the machine is, on stderr: a real deal takes half a minute (about two cards a second), which should
    not look like a hang. On a terminal one line counts up in place; elsewhere (a log) a line per quarter."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.tty = out.isatty()
        self.label = ""
        self.total = 0
        self.cards = False  # count the cards read (a deal) rather than the machine's busy reports
        self.dealt = 0
        self.shown = -1
        self.lock = threading.Lock()

    def start(self, label: str, total: int, cards: bool = False) -> None:
        with self.lock:
            self._close_line()
            self.label, self.total, self.cards, self.dealt, self.shown = label, total, cards, 0, -1
            self._show(0)

    def busy(self, _cmd_id: int, done: int, total: int) -> None:
        """The machine's progress report (the deck check and the shuffle count their cards)."""
        if not self.cards and total:
            with self.lock:
                self.total = total
                self._show(done)

    def card(self, _cmd_id: int, _pocket: int, _card: str | None) -> None:
        """A card read on its way to a pocket (never named here: this line is on the operator's screen)."""
        if self.cards:
            with self.lock:
                self.dealt += 1
                self._show(self.dealt)

    def end(self) -> None:
        with self.lock:
            self._close_line()
            self.label = ""

    def _show(self, done: int) -> None:
        if self.tty:
            self.out.write(f"\r{self.label}... {done}/{self.total}")
        else:
            quarter = 4 * done // self.total if self.total else 0
            if quarter == self.shown:
                return
            self.shown = quarter
            self.out.write(f"{self.label}... {done}/{self.total}\n")
        self.out.flush()

    def _close_line(self) -> None:
        if self.tty and self.label:
            self.out.write("\n")
            self.out.flush()


def _print_pockets(
    pockets: tuple[tuple[str | None, ...], ...],
    hopper: int,
    pattern: tuple[int, ...] | None,
    game: str | None,
    players: int = 4,
) -> None:
    names = list(POCKET_NAMES)
    if game == "bid_whist":
        names[4] = "kitty"
    elif game == "pitch" and players == 5:
        names[4] = "seat 4"
    for p, cards in enumerate(pockets):
        if (pattern[p] if pattern is not None and p < len(pattern) else len(cards)) or cards:
            print(f"{names[p]:8} ({len(cards):2}): {' '.join(c or '??' for c in cards)}")
    if hopper:
        held = "rest"
        if game == "pitch":
            held = "pack" if players == 4 else "blind"
        print(f"{held:8} ({hopper:2}): held in the machine")


def cmd_after_fault(args: argparse.Namespace) -> int:
    """``status``, ``resume`` or ``abort`` on the machine at --port, then print the pockets."""
    from firmware_bridge.simple import SimpleDealer

    key = _key(args, create=False)
    try:
        dealer = SimpleDealer.open(args.port, key, timeouts=Timeouts(connect=args.timeout))
    except DealerError as exc:
        raise _user_error(f"--port {args.port}: {exc}") from None
    try:
        if args.dealer_command == "resume":
            state = dealer.resume().state
        elif args.dealer_command == "abort":
            state = dealer.abort()
        else:
            state = dealer.status()
    except DealerError as exc:
        raise _user_error(str(exc)) from None
    finally:
        dealer.close()
    _print_pockets(state.pockets, state.hopper, None, None)
    pending = f", an interrupted deal owes {sum(state.plan_remaining)} cards" if state.plan_cmd else ""
    door = ", door open" if state.door_open else ""
    print(f"last fault: {state.last_fault.name.lower()}{pending}{door}", file=sys.stderr)
    return 0


# registration


def _add_key(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--key-file",
        help="the pairing key (64 hex digits); default $CARDREF_DEALER_KEY or ~/.config/cardref/dealer.key",
    )


def register(commands: Commands) -> None:
    """Add ``cardref dealer sim|deal|status|resume|abort``."""
    sub = commands.group("dealer")

    p = sub.add_parser("sim", help="start the simulated machine on a pseudo-terminal and print its path")
    _add_key(p)
    p.add_argument("--seed", type=int, default=None, help="seed of the hopper order and the faults")
    p.add_argument("--fast", action="store_true", help="1/500 of the real mechanism timings")
    p.add_argument("--game", choices=tuple(GAMES), default=None, help="load this game's deck (default: 54 cards)")
    p.add_argument(
        "--fault-rate",
        type=probability("--fault-rate"),
        default=0.0,
        help="per card, of each mechanical fault",
    )
    p.add_argument(
        "--firmware",
        metavar="ELF",
        help="run the real firmware (hardware/firmware/build/dealer.elf, `make firmware`) in the emulator",
    )
    p.add_argument("--link", help="also publish the device at this path (a symlink)")
    p.add_argument(
        "--seconds", type=float, default=0.0, help="stop after this long (default: run until Ctrl-C)"
    )
    p.set_defaults(func=cmd_sim)

    p = sub.add_parser(
        "deal", help="deal a game on the machine at --port and print what each pocket received"
    )
    p.add_argument("--port", required=True, help="device path (/dev/ttyUSB0, a pty) or pyserial URL")
    p.add_argument("--game", required=True, choices=tuple(GAMES))
    p.add_argument("--players", type=int, default=4, help="4, or 5 for five-handed pitch")
    p.add_argument("--no-shuffle", action="store_true", help="deal the hopper as it lies")
    p.add_argument(
        "--board",
        help="deal this board: a table record (JSON Lines) whose first deal event names the hands and kitty",
    )
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the machine to answer")
    _add_key(p)
    p.set_defaults(func=cmd_deal)

    for name, text in (
        ("status", "show the machine's state report (pockets, hopper, last fault, interrupted deal)"),
        ("resume", "finish the deal a fault interrupted, after fixing its cause"),
        ("abort", "give up the deal a fault interrupted"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--port", required=True, help="device path or pyserial URL")
        p.add_argument(
            "--timeout", type=float, default=10.0, help="seconds to wait for the machine to answer"
        )
        _add_key(p)
        p.set_defaults(func=cmd_after_fault)
