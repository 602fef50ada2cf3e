"""Tables made in code for the HFM benchmarks: a credit-like and a law-school-like one.

``credit_like``: 30,000 rows shaped like the credit-card default table
(Yeh and Lien, 2009) without it: 20 features on mixed scales (a credit
limit in dollars, an age in years, six repayment statuses from -2 to 8, six
bill amounts that may be negative and six payments, both heavy-tailed), a
default rate of about 22%, and 3 sensitive attributes of 2, 4 and 7 values
(sex, marriage, education). ``law_like``: 21,791 rows like the law-school
admissions table, 3 discrete features (LSAT points, undergraduate GPA to a
tenth, full-time), race (8 values) and sex, so that most feature vectors
repeat.
"""

import numpy as np


def credit_like(n=30_000, seed=0):
    """``(X, y, A)``: features (n, 20), default (0/1), sensitive (n, 3)."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(2, n, p=[0.6, 0.4])
    marriage = rng.choice(4, n, p=[0.45, 0.52, 0.02, 0.01])
    education = rng.choice(7, n, p=[0.35, 0.47, 0.16, 0.005, 0.005, 0.008, 0.002])
    age = np.clip(np.round(rng.gamma(9.0, 4.0, n) + 0.5 * (marriage == 1) * 8), 21, 79)
    limit = np.maximum(np.round(np.exp(rng.normal(11.7 + 0.1 * (education == 0), 0.8, n)), -4),
                       1e4)
    risk = rng.normal(0, 1, n)
    pay = np.clip(np.round(risk[:, None] * 1.2 + rng.normal(-0.6, 1.0, (n, 6))), -2, 8)
    bill = np.round(limit[:, None] * rng.beta(1.2, 2.5, (n, 6))
                    - (rng.random((n, 6)) < 0.02) * rng.exponential(2000, (n, 6)))
    payment = np.round(rng.lognormal(7.5, 1.6, (n, 6)) * (rng.random((n, 6)) > 0.15))
    X = np.column_stack([limit, age, pay, bill, payment]).astype(np.float64)
    logit = -1.6 + 0.9 * risk + 0.25 * pay[:, 0] - 0.3 * np.log(limit / 1e5) + 0.1 * sex
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, np.column_stack([sex, marriage, education])


def law_like(n=21_791, seed=0):
    """``(X, y, A)``: features (n, 3), pass (0/1), sensitive (n, 2): race, sex."""
    rng = np.random.default_rng(seed)
    race = rng.choice(8, n, p=[.75, .09, .06, .04, .02, .02, .01, .01])
    sex = rng.integers(0, 2, n)
    lsat = np.clip(np.round(rng.normal(36 - 3 * (race > 0), 5, n)), 11, 48)
    gpa = np.clip(np.round(rng.normal(3.2 - .2 * (race > 0), .4, n), 1), 1.5, 4.0)
    full_time = (rng.random(n) < .9).astype(float)
    X = np.column_stack([lsat, gpa, full_time])
    y = (0.1 * lsat + gpa + rng.normal(0, 1, n) > 7.0).astype(int)
    return X, y, np.column_stack([race, sex])


def flipped(y, rate=0.1, seed=1):
    """Predictions: ``y`` with a share ``rate`` of the labels flipped."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(len(y)) < rate, 1 - y, y)
