"""cardref: tools, everything that measures or exercises the product and is not the product: benchmarks, soaks,
demos, the synthetic scene generator and the card-theme importer. The product never imports this package; its
commands reach the ``cardref`` command through the ``cardref.tools`` entry point (``tools.commands.register``)."""
