"""cardref: dealer_protocol, the dealing machine's wire protocol (docs/protocol.md), one module for both ends.

``framing`` (COBS + CRC-16), ``security`` (HMAC tags, keys, sequence numbers), ``messages`` (commands, replies,
faults, the state report) and ``cards`` (one byte per card) are used alike by the host driver
(``firmware_bridge``), the simulated machine (``hardware``) and the firmware's test vectors.
"""
