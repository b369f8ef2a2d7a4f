"""The readers keep numpy's BLAS to one thread (``vision.threads``)."""

from threadpoolctl import threadpool_info, threadpool_limits

from vision import recognise, threads


def _blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_a_recogniser_keeps_numpys_blas_to_one_thread(monkeypatch):
    """Made with a BLAS pool of two threads (the development machine's default), a recogniser leaves it at one."""
    with threadpool_limits(2, user_api="blas"):
        monkeypatch.setattr(threads, "_limited", False)
        assert _blas_threads() and set(_blas_threads()) == {2}  # (numpy's wheels bring OpenBLAS)
        recognise.Recogniser(None)
        assert set(_blas_threads()) == {1}
