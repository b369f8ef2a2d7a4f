"""What the referee knows about where each unseen card is.

A renege is called only when proven (RULINGS.md, "Common to all games": "the player is known to have held a
card of the suit led at that moment"). Proof needs knowledge, and the table gives it in pieces: the dealing
machine reads every card (hands known), or nobody does (hands dealt by hand), or some moves are face down
(a single's exchange, a joker swap, a declarer's discard).

The model: a few locations (the seats' hands, the kitty or pack, the face-down discard book), each holding a
known number of cards; for each location, the cards that may be there and the cards that certainly are.
Seen cards (played, discarded face up, burned) leave every location. Deductions are only ever the sound
ones: a card possible in one place only is certainly there; a location whose count is filled by its certain
cards can hold nothing else; a location with exactly as many possible cards as its count holds them all.
A contradiction means the record cannot have happened.

While every card's place is known (``exact``), a location's possible cards are its certain cards, and the two
lists may be one list object (a play then costs one write, not two): code that changes one list in place
without the same change to the other calls ``_unshare()`` first. Readers never need to care.
"""

from __future__ import annotations

from typing import Final

from engine.cards import CODES
from engine.errors import KnowledgeError

# Cards in each deck (by its mask): a compiled build calls int.bit_count as a Python method, once per deck here.
_DECK_SIZE: Final[dict[int, int]] = {}




class Knowledge:
    """Possible and certain cards per location, with each location's card count."""

    __slots__ = ("possible", "certain", "count", "exact", "names")

    def __init__(self, assign: list[list[int | None]], universe: int, names: list[str]) -> None:
        """``assign[loc]`` lists the cards at each location, ``None`` where a card is not known."""
        self.names = names
        known_all = 0
        unknown_at = 0  # bit loc set: location loc has cards nobody read
        total = 0
        certain: list[int] = []
        count: list[int] = []
        for loc in range(len(assign)):
            cards = assign[loc]
            m = 0
            for c in cards:
                if c is None:
                    unknown_at |= 1 << loc
                    continue
                bit = 1 << c
                if known_all & bit or not universe & bit:
                    if known_all & bit:
                        raise KnowledgeError(f"{CODES[c]} is dealt twice")
                    raise KnowledgeError(f"{CODES[c]} is not in this game's deck")
                known_all |= bit
                m |= bit
            certain.append(m)
            count.append(len(cards))
            total += len(cards)
        size = _DECK_SIZE.get(universe)
        if size is None:
            size = _DECK_SIZE[universe] = universe.bit_count()
        if total != size:
            raise KnowledgeError(f"{total} cards dealt, the deck has {size}")
        self.certain = certain
        self.count = count
        if not unknown_at:
            self.possible = certain  # one list while exact (see the module's docstring)
            self.exact = True
            return
        pool = universe & ~known_all
        self.possible = [certain[loc] | (pool if unknown_at >> loc & 1 else 0) for loc in range(len(assign))]
        self.exact = False
        self.propagate()

    # -- questions -------------------------------------------------------------------------------------

    def may_hold(self, loc: int, c: int) -> bool:
        return bool(self.possible[loc] >> c & 1)

    def holds(self, loc: int, c: int) -> bool:
        return bool(self.certain[loc] >> c & 1)

    def unseen(self) -> int:
        m = 0
        for p in self.possible:
            m |= p
        return m

    # -- changes ---------------------------------------------------------------------------------------

    def leave(self, loc: int, c: int) -> None:
        """Card ``c`` leaves ``loc`` face up (played, discarded face up, burned): it is seen."""
        bit = 1 << c
        if not self.possible[loc] & bit:
            raise KnowledgeError(f"{self.names[loc]} cannot hold {CODES[c]}")
        self.count[loc] -= 1
        if self.exact:
            self.certain[loc] ^= bit
            if self.possible is not self.certain:
                self.possible[loc] ^= bit
            return
        keep = ~bit
        self.possible = [p & keep for p in self.possible]
        self.certain = [p & keep for p in self.certain]
        self.propagate()

    def move(self, src: int, dst: int, c: int | None) -> None:
        """A card goes from ``src`` to ``dst`` without being shown; ``c`` is None when nobody read it."""
        if self.count[src] <= 0:
            raise KnowledgeError(f"{self.names[src]} has no card to give")
        if c is not None and not self.possible[src] >> c & 1:  # checked before anything changes
            raise KnowledgeError(f"{self.names[src]} cannot hold {CODES[c]}")
        self.count[src] -= 1
        self.count[dst] += 1
        if c is not None:
            bit = 1 << c
            keep = ~bit
            if self.exact:  # a known card moved between known places: nothing new to conclude
                certain = [p & keep for p in self.certain]
                certain[dst] |= bit
                self.certain = self.possible = certain
                return
            self.possible = [p & keep for p in self.possible]
            self.certain = [p & keep for p in self.certain]
            self.possible[dst] |= bit
            self.certain[dst] |= bit
        else:
            # One unknown card of src's moved: each of src's cards may now be in either place.
            self._unshare()
            self.possible[dst] |= self.possible[src]
            self.certain[src] = 0
            self.exact = False
        self.propagate()

    def merge(self, src: int, dst: int) -> None:
        """Every card of ``src`` joins ``dst`` (the declarer takes the kitty into hand)."""
        self._unshare()
        self.count[dst] += self.count[src]
        self.possible[dst] |= self.possible[src]
        self.certain[dst] |= self.certain[src]
        self.count[src] = 0
        self.possible[src] = 0
        self.certain[src] = 0
        if self.exact:
            self.possible = self.certain
        else:
            self.propagate()

    def _unshare(self) -> None:
        """Give possible and certain a list each, before a change that applies to one of them only."""
        if self.possible is self.certain:
            self.possible = self.certain[:]

    def propagate(self) -> None:
        """Draw every sound conclusion; raise KnowledgeError on a contradiction."""
        self._unshare()
        possible, certain, count = self.possible, self.certain, self.count
        n = len(possible)
        changed = True
        while changed:
            changed = False
            once = twice = 0
            for p in possible:
                twice |= once & p
                once |= p
            single = once & ~twice  # possible in one location only
            all_certain = 0
            for loc in range(n):
                c = certain[loc] | (possible[loc] & single)
                if c != certain[loc]:
                    certain[loc] = c
                    changed = True
                all_certain |= c
            for loc in range(n):
                p = possible[loc] & ~(all_certain & ~certain[loc])
                k = certain[loc].bit_count()
                if k > count[loc] or p.bit_count() < count[loc]:
                    raise KnowledgeError(f"the cards seen do not fit {self.names[loc]} ({count[loc]} cards)")
                if k == count[loc]:
                    p = certain[loc]
                elif p.bit_count() == count[loc] and certain[loc] != p:
                    certain[loc] = p
                    changed = True
                if p != possible[loc]:
                    possible[loc] = p
                    changed = True
        self.exact = all(p == c for p, c in zip(possible, certain, strict=True))
