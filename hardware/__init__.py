"""cardref: hardware."""
