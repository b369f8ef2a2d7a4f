"""cardref: hardware, the device side of the dealing machine: its simulated twin.

``machine`` models the mechanism, ``device`` its firmware (over ``dealer_protocol``), ``sim`` plugs the two into a
pty (or a socket) that the host opens as it would ``/dev/ttyUSB0``; ``channels`` are those byte pipes.
"""
