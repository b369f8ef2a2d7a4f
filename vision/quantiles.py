"""Quantiles from a partial sort or one sort: the readers take them of many small arrays, where ``np.percentile``'s
and ``np.median``'s own work round the arithmetic is most of the time.

Each gives the bits numpy gives (``tests/vision/test_quantiles.py``): ``percentile`` those of ``np.percentile(a, q)``
with one quantile (interpolated in the array's own type, float32 for a float32 array, as numpy does for a scalar
``q``), ``row_percentiles`` those of ``np.percentile(a, qs, axis=1)`` with a tuple of them (float64, as numpy gives
then), ``row_median`` those of ``np.median(a, axis=1)``. The finder's rim test
takes its quantiles of arrays it has sorted already (``quantile_sorted``, ``median_sorted``), and its snapping the
median of short 1-d arrays (``median1``)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _lerp(x: Any, y: Any, t: Any) -> Any:
    """numpy's linear interpolation between neighbours ``x`` and ``y`` at ``t`` (from the nearer one)."""
    return y - (y - x) * (1 - t) if t >= 0.5 else x + (y - x) * t


def percentile(a: np.ndarray, q: float) -> float:
    """``np.percentile(a, q)`` for one quantile ``q`` (linear interpolation, in the array's own float type as numpy
    does, or float64 for bytes) from a partial sort, in a third of the time."""
    flat = a.ravel()
    pos = q / 100 * (flat.size - 1)
    lo = int(pos)
    hi = min(lo + 1, flat.size - 1)
    part = np.partition(flat, [lo, hi]) if hi != lo else np.partition(flat, lo)
    return float(_lerp(part[lo], part[hi], pos - lo))


def row_percentiles(a: np.ndarray, qs: tuple[float, ...]) -> list[np.ndarray]:
    """``np.percentile(a, qs, axis=1)`` of a 2-d array, one array per quantile (float64, as numpy gives them), from
    one partial sort of its rows."""
    n = a.shape[1]
    # (numpy's virtual index for the linear method, (n - 1) q, its floor and the fraction above it)
    pos = [(n - 1) * (np.float64(q) / 100) for q in qs]
    los = [int(np.floor(p)) for p in pos]
    his = [min(lo + 1, n - 1) for lo in los]
    s = np.partition(a, sorted(set(los + his)), axis=1)
    return [_lerp(s[:, lo], s[:, hi], p - lo) for p, lo, hi in zip(pos, los, his, strict=True)]


def row_median(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=1)``, from one sort along that axis."""
    return median_sorted(np.moveaxis(np.sort(a, axis=1), 1, 0))


def quantile_sorted(v: np.ndarray, q: float) -> float:
    """``np.percentile(v, 100 q)`` (linear) of an already sorted 1-d array."""
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return float(v[lo] + (v[hi] - v[lo]) * (pos - lo))


def median_sorted(v: np.ndarray) -> np.ndarray:
    """``np.median(v, axis=0)`` of an array already sorted along axis 0."""
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def median1(v: np.ndarray) -> np.floating:
    """``np.median`` of a 1-d array, the same value (the middle of a partial sort; the mean of the middle two in the
    array's type), without its overhead."""
    k = len(v) // 2
    if len(v) % 2:
        return np.partition(v, k)[k]
    p = np.partition(v, [k - 1, k])
    return (p[k - 1] + p[k]) / 2
