"""Quantiles from a partial sort or one sort: the readers take them of many small arrays, where ``np.percentile``'s
and ``np.median``'s own work round the arithmetic is most of the time.

``row_percentiles`` and ``row_median`` give the bits numpy gives (``tests/vision/test_quantiles.py``). ``percentile``
gives numpy's bits for byte images; of a float32 array it interpolates in float32, where numpy does in float64 (the
readers were measured with it so)."""

from __future__ import annotations

import numpy as np


def percentile(a: np.ndarray, q: float) -> float:
    """``np.percentile(a, q)`` (linear interpolation, numpy's own rounding) from a partial sort: a third of the time."""
    flat = a.ravel()
    pos = q / 100 * (flat.size - 1)
    lo = int(pos)
    hi = min(lo + 1, flat.size - 1)
    part = np.partition(flat, [lo, hi]) if hi != lo else np.partition(flat, lo)
    x, y = part[lo], part[hi]
    t = pos - lo
    return float(y - (y - x) * (1 - t) if t >= 0.5 else x + (y - x) * t)


def row_percentiles(a: np.ndarray, qs: tuple[float, ...]) -> list[np.ndarray]:
    """``np.percentile(a, qs, axis=1)`` of a 2-d array, one array per quantile (float64, as numpy gives them), from
    one partial sort of its rows."""
    n = a.shape[1]
    # (numpy's virtual index for the linear method, (n - 1) q, its floor and the fraction above it)
    pos = [(n - 1) * (np.float64(q) / 100) for q in qs]
    los = [int(np.floor(p)) for p in pos]
    his = [min(lo + 1, n - 1) for lo in los]
    s = np.partition(a, sorted(set(los + his)), axis=1)
    out = []
    for p, lo, hi in zip(pos, los, his, strict=True):
        t = p - lo
        x, y = s[:, lo], s[:, hi]
        d = y - x
        out.append(y - d * (1 - t) if t >= 0.5 else x + d * t)
    return out


def row_median(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=1)``, from one sort along that axis."""
    s = np.sort(a, axis=1)
    n = a.shape[1]
    return s[:, n // 2] if n % 2 else (s[:, n // 2 - 1] + s[:, n // 2]) / 2
