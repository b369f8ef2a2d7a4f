"""cardref: firmware_bridge."""
