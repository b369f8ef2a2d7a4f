"""cardref: referee."""
