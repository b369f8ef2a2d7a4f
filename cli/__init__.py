"""cardref: cli, the ``cardref`` command. The top of the product: it joins the service, the dealing machine's link
and the camera; ``errors`` holds the one error a command reports to its user. Tools (``tools/``) add their own
sub-commands through the ``cardref.tools`` entry points, so the product never imports them."""
