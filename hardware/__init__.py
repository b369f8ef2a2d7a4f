"""cardref: hardware, the simulated dealing machine and its test rig.

``machine`` models the mechanism, ``device`` its firmware, ``sim`` plugs the two into a pty (or a socket);
``relay`` is the bad cable between two ptys; ``soak`` and ``bench`` measure the link.
"""
