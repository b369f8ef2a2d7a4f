"""cardref: firmware_bridge, the host side of the dealing machine's link.

``driver.Dealer`` (asyncio) and ``simple.SimpleDealer`` (blocking) speak the protocol of docs/protocol.md
(``dealer_protocol``) over any pyserial URL or device path; ``errors`` has one exception per fault.
"""
