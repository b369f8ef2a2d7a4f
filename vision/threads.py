"""How many threads the readers' arithmetic takes: numpy's BLAS kept to one (``one_blas_thread``).

The readers' matrix products are small - a card's face and corner windows against a deck's templates, some thousands
of numbers by a few dozen - and a BLAS thread pool gains nothing on them, while its threads, spinning beside the
other work of a table's computer (the camera, the service, a second reader) on the same cores, lose much: on the
development machine (2 cores) with two other jobs running, 30 of boxes_test's photos read with the boxes deck
enrolled took a median 108-126 ms each with numpy's default pool and 66-76 ms with one thread; the generic mode
61-94 ms and 57-61 ms (a session script alternating the two in separate processes). The speed target is per core
(``tools/photo_bench.py`` limits OpenCV's threads to one); with the pool left at two threads it was not one core that
was measured.
"""

from __future__ import annotations

from threadpoolctl import threadpool_limits

_limited = False


def one_blas_thread() -> None:
    """Keep every BLAS library numpy loaded (OpenBLAS in numpy's wheels) to one thread, for this whole process; once
    is enough (``threadpoolctl``: no environment variable, which would have to be set before numpy is imported)."""
    global _limited
    if not _limited:
        threadpool_limits(1, user_api="blas")
        _limited = True
