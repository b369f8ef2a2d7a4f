"""cardref: vision."""
