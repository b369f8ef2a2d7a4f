"""The quick quantiles give numpy's own bits: a speed change must not move a single read."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vision.quantiles import median1, percentile, row_median, row_percentiles

_rows = st.tuples(st.integers(1, 40), st.integers(1, 60))
_floats = st.floats(0, 255, width=32)
_quantiles = st.lists(st.sampled_from([0, 10, 40, 50, 60, 75, 90, 99.5, 100]), min_size=1, max_size=4, unique=True)


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float32, _rows, elements=_floats), _quantiles)
def test_row_percentiles_are_numpys_bits(a, qs):
    want = np.percentile(a, qs, axis=1)
    for q, w, got in zip(qs, want, row_percentiles(a, tuple(qs)), strict=True):
        assert got.dtype == w.dtype, q
        assert np.array_equal(got, w), q


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 30), st.integers(1, 40), st.just(3)), elements=_floats))
def test_row_median_is_numpys_bits(a):
    want = np.median(a, axis=1)
    got = row_median(a)
    assert got.dtype == want.dtype and np.array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.uint8, st.tuples(st.integers(1, 30), st.integers(1, 30)), elements=st.integers(0, 255)),
       st.sampled_from([0, 10, 40, 60, 99, 99.5, 100]))
def test_percentile_of_a_byte_image_is_numpys(a, q):
    assert percentile(a, q) == float(np.percentile(a, q))


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.float32, st.tuples(st.integers(1, 30), st.integers(1, 30)), elements=_floats),
       st.sampled_from([0, 10, 40, 60, 75, 80, 90, 99, 99.5, 100]))
def test_percentile_of_a_float32_array_is_numpys_own(a, q):
    # (numpy interpolates a float32 array in float32 for one quantile given as a number: so does ``percentile``)
    want = np.percentile(a, q)
    assert want.dtype == np.float32 and percentile(a, q) == float(want)


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.float32, st.integers(1, 40), elements=_floats))
def test_median1_is_numpys_median(a):
    assert median1(a) == np.median(a)


def test_a_tie_and_a_single_value():
    a = np.array([[5, 5, 5, 7]], np.float32)
    assert [float(v[0]) for v in row_percentiles(a, (0, 50, 100))] == [5.0, 5.0, 7.0]
    assert float(row_percentiles(np.array([[3.5]], np.float32), (90,))[0][0]) == 3.5
