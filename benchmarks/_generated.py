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


def credit_tied(n=30_000, seed=0):
    """``(X, y, A)``: a credit table of integer codes with heavy ties and repeated rows.

    Shaped like the credit-card default table as it comes (Yeh and Lien, 2009):
    20 integer features, a credit limit in steps of 10,000, an age in years,
    six repayment statuses from -2 to 8 that follow each other month to month,
    six bill amounts and six payments in whole dollars, the payments mostly
    round sums or zero; about one account in seven is inactive (status -2,
    no bill, no payment), so that many rows repeat. A default rate of about
    22 %; sensitive sex (2 values), education (7) and marriage (4).
    """
    rng = np.random.default_rng(seed)
    sex = rng.choice(2, n, p=[0.6, 0.4])
    education = rng.choice(7, n, p=[0.0005, 0.35, 0.47, 0.16, 0.0045, 0.0093, 0.0057])
    marriage = rng.choice(4, n, p=[0.002, 0.455, 0.532, 0.011])
    age = np.clip(np.round(rng.gamma(9.0, 3.9, n) + 3 * (marriage == 1)), 21, 79)
    limit = np.clip(np.round(np.exp(rng.normal(11.7 + 0.15 * (education == 1), 0.75, n)), -4),
                    1e4, 1e6)
    risk = rng.normal(0, 1, n)
    inactive = rng.random(n) < 0.14
    # statuses: a month's status follows the last one's
    pay = np.empty((n, 6))
    pay[:, 0] = np.clip(np.round(0.9 * risk + rng.normal(-0.4, 0.8, n)), -2, 8)
    for j in range(1, 6):
        move = rng.random(n) < 0.3
        pay[:, j] = np.where(move, np.clip(pay[:, j - 1] + rng.integers(-1, 2, n), -2, 8),
                             pay[:, j - 1])
    use = rng.beta(1.1, 2.2, n)
    bill = np.round(limit[:, None] * np.clip(use[:, None] + rng.normal(0, 0.05, (n, 6)), 0, 1.1))
    bill[pay == -2] = 0
    round_sum = rng.choice([0, 500, 1000, 1500, 2000, 3000, 5000, 10000], (n, 6),
                           p=[0.25, 0.05, 0.2, 0.05, 0.15, 0.1, 0.12, 0.08])
    exact_sum = np.round(bill * rng.beta(1.0, 6.0, (n, 6)))
    payment = np.where(rng.random((n, 6)) < 0.6, round_sum, exact_sum)
    pay[inactive], bill[inactive], payment[inactive] = -2, 0, 0
    X = np.column_stack([limit, age, pay, bill, payment]).astype(np.int64)
    logit = -1.2 + 0.8 * risk + 0.3 * pay[:, 0] - 0.3 * np.log(limit / 1e5) + 0.1 * sex \
        - 1.0 * inactive
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, np.column_stack([sex, education, marriage])
