"""cardref: firmware_bridge, the host side of the dealing machine's link.

``driver.Dealer`` (asyncio) and ``simple.SimpleDealer`` (blocking) speak the protocol of docs/protocol.md over
any pyserial URL or device path; ``framing``, ``security`` and ``messages`` are the wire format; ``errors`` has
one exception per fault; ``cli`` adds ``cardref dealer``.
"""
