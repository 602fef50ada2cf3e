"""make_biased_wages: the planted gap is exactly where and how large it says."""

import numpy as np
import pytest

from skfair_manifold.datasets import make_biased_wages

pytest.importorskip("pandas")


def test_the_gap_is_planted_on_the_women_of_the_biased_cells_only():
    wages = make_biased_wages(3000, gap=0.15, random_state=1)
    X, paid, fair = wages.data, wages.target, wages.fair_target
    cell = np.zeros(len(X), dtype=bool)
    for region, sector in wages.biased_cells:
        cell |= (X.region == region).to_numpy() & (X.sector == sector).to_numpy()
    expected = cell & (X.sex == "female").to_numpy()
    assert np.array_equal(wages.discriminated.to_numpy(), expected)
    ratio = (paid / fair).to_numpy()
    assert np.allclose(ratio[expected], 0.85, atol=1e-4)
    assert np.array_equal(paid[~expected].to_numpy(), fair[~expected].to_numpy())


def test_no_gap_gives_wages_independent_of_sex_and_the_same_draws():
    none = make_biased_wages(2000, gap=0.0, random_state=2)
    assert not none.discriminated.any()
    assert np.array_equal(none.target.to_numpy(), none.fair_target.to_numpy())
    again = make_biased_wages(2000, gap=0.3, random_state=2)
    assert np.array_equal(again.fair_target.to_numpy(), none.fair_target.to_numpy())


@pytest.mark.parametrize("kwargs, match", [
    ({"gap": 1.0}, "gap must be a number in"),
    ({"gap": "0.1"}, "gap must be a number in"),
    ({"biased_cells": (("mars", "private"),)}, "biased_cells must be pairs"),
])
def test_bad_settings_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_biased_wages(100, **kwargs)
