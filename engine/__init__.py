"""cardref: engine."""
