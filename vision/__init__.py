"""cardref: vision - the camera part of the referee.

``synth`` renders table scenes and played hands with ground truth; ``mat`` draws the printable mat and calibrates
the camera from its ArUco markers; ``deck`` enrolls a card design; ``recognise`` finds and reads cards (``null``
when unsure); ``play`` turns a frame stream into play events; ``bench`` measures it all. See docs/vision.md.
"""
