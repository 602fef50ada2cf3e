"""The cell table: the one intermediate of every group rate, gap and interval.

A cell is one combination of (group of every sensitive attribute, true label
positive or not, prediction positive or not) that occurs in the data. For
each cell the table keeps three numbers: its ``count`` of rows, the ``weight``
(sum of the sample weights; equal to ``count`` without weights) and
``weight_sq`` (sum of squared weights, for the effective sample size of a
weighted rate). Every per-group quantity of a binary classifier is a sum of
cells, so the table is all that :func:`fairness_report` and the group metrics
need, whatever the number of rows: it has at most ``4 x`` (number of group
combinations present) rows.

The table is a plain structure on purpose: a lazy or distributed frame can
compute it where the data lives (one ``GROUP BY`` over the sensitive columns
and the two indicators) and hand it to the same code.
"""

from dataclasses import dataclass
from math import prod

import numpy as np

from ...utils._validation import MSG_SINGLE_GROUP, as_sensitive, small_int_bounds

__all__ = ["CellTable", "cell_table", "rows_cell_table"]

#: rows of one block of the in-memory counting (its temporaries stay in the cache)
_BLOCK_ROWS = 1 << 16

#: largest number of combinations (x 4 label cells) counted by one ``np.bincount``
#: over a dense key (and never more than about 4 per row, so that a few rows with
#: many possible combinations allocate nothing large); beyond it the key is sorted
#: (``np.unique``), and keys that do not fit in int64 give way to the code rows
_DENSE_KEYS = 1 << 22


def combine_groups(codes, groups, attributes, *, separator=" & "):
    """The combinations of several attributes' groups as the groups of one attribute.

    ``codes`` is an ``(n, k)`` array of the ``k`` attributes' group codes.
    Returns ``(codes, labels, name)``: each row's combination code, the
    combinations' labels joining their values with ``separator``
    (``"black & female"``) in the lexicographic order of the codes, and the
    attributes' names joined alike. The one intersection of the package: the
    cell table's, the continuous report's and its lazy frames'.
    """
    combos, inverse = np.unique(np.asarray(codes), axis=0, return_inverse=True)
    labels = np.empty(combos.shape[0], dtype=object)
    parts = [groups[k][combos[:, k]] for k in range(combos.shape[1])]
    for i in range(combos.shape[0]):
        labels[i] = separator.join(str(part[i]) for part in parts)
    return (inverse.reshape(-1).astype(np.intp), labels,
            separator.join(str(a) for a in attributes))


@dataclass(frozen=True, eq=False)
class CellTable:
    """Counts and weights of each (groups, true label, prediction) cell present.

    Attributes
    ----------
    attributes : list
        The sensitive attributes' names, in column order.
    groups : list of ndarray
        Per attribute, its distinct values in sorted order; ``codes[:, k]``
        indexes ``groups[k]``.
    codes : ndarray of shape (n_cells, n_attributes), dtype intp
        The group of each attribute in each cell.
    y_true : ndarray of shape (n_cells,), dtype int8
        1 where the cell's true label is the favourable class, else 0.
    y_pred : ndarray of shape (n_cells,), dtype int8
        1 where the cell's prediction is the favourable class, else 0.
    count : ndarray of shape (n_cells,), dtype int64
        Rows in the cell.
    weight : ndarray of shape (n_cells,), dtype float64
        Sum of the rows' sample weights (``count`` without weights).
    weight_sq : ndarray of shape (n_cells,), dtype float64
        Sum of the squared weights (``count`` without weights).
    weighted : bool
        Whether sample weights were given.
    """

    attributes: list
    groups: list
    codes: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray
    count: np.ndarray
    weight: np.ndarray
    weight_sq: np.ndarray
    weighted: bool = False

    @property
    def n_samples(self):
        """Rows the table sums."""
        return int(self.count.sum())

    def sums(self, k):
        """Per group of attribute ``k``: count, weight and squared weight by (label, prediction).

        Returns
        -------
        sums : dict of str to ndarray of shape (n_groups, 2, 2)
            ``"count"``, ``"weight"``, ``"weight_sq"``; index ``[g, t, p]`` is
            group ``g``, true label ``t`` (1 favourable) and prediction ``p``.
        """
        g = self.groups[k].shape[0]
        flat = (self.codes[:, k] * 4 + 2 * self.y_true + self.y_pred).astype(np.intp)
        return {name: np.bincount(flat, weights=values, minlength=4 * g).reshape(g, 2, 2)
                for name, values in (("count", self.count), ("weight", self.weight),
                                     ("weight_sq", self.weight_sq))}

    def total(self):
        """The sums of :meth:`sums` over all rows, each of shape (2, 2)."""
        flat = (2 * self.y_true + self.y_pred).astype(np.intp)
        return {name: np.bincount(flat, weights=values, minlength=4).reshape(2, 2)
                for name, values in (("count", self.count), ("weight", self.weight),
                                     ("weight_sq", self.weight_sq))}

    def intersect(self, *, separator=" & "):
        """One attribute whose groups are the combinations of all attributes present.

        Its name joins the attributes' names with ``separator``, and each group
        joins its values (``"black & female"``), in the lexicographic order of
        the attributes' codes. The cells stay the same.
        """
        if len(self.attributes) == 1:
            return self
        inverse, labels, name = combine_groups(self.codes, self.groups, self.attributes,
                                               separator=separator)
        return CellTable(attributes=[name], groups=[labels],
                         codes=inverse.reshape(-1, 1),
                         y_true=self.y_true, y_pred=self.y_pred, count=self.count,
                         weight=self.weight, weight_sq=self.weight_sq,
                         weighted=self.weighted)

    def to_frame(self):
        """The table as a pandas DataFrame, one row per cell, groups as their values."""
        import pandas as pd

        data = {str(a): self.groups[k][self.codes[:, k]] for k, a in enumerate(self.attributes)}
        data.update(y_true=self.y_true, y_pred=self.y_pred, count=self.count,
                    weight=self.weight, weight_sq=self.weight_sq)
        return pd.DataFrame(data)


def _row_keys(codes, sizes, label_cell):
    """A cell index per row, and the code rows of the cells present (no overflow possible)."""
    n_keys = prod(sizes) * 4  # a Python int: exact, whatever the sizes
    if n_keys < np.iinfo(np.int64).max:
        key = label_cell.astype(np.int64)
        radix = 4
        for code, g in zip(reversed(codes), reversed(sizes)):
            key = key + code.astype(np.int64) * radix
            radix *= g
        if n_keys <= min(_DENSE_KEYS, 4 * label_cell.shape[0] + 1024):
            present = np.flatnonzero(np.bincount(key, minlength=n_keys))
            index = np.full(n_keys, -1, dtype=np.intp)
            index[present] = np.arange(present.shape[0])
            inverse = index[key]
        else:
            present, inverse = np.unique(key, return_inverse=True)
        return (inverse.reshape(-1), *_decode_keys(present, sizes))
    # too many combinations for one integer key: the rows of codes themselves are the key
    stacked = np.column_stack([*codes, label_cell]).astype(np.intp, copy=False)
    rows, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return inverse.reshape(-1), rows[:, :-1], rows[:, -1].astype(np.int8)


def cell_table(codes, names, groups, true_pos, pred_pos, weights=None):
    """The :class:`CellTable` of encoded rows.

    Parameters
    ----------
    codes : list of ndarray of shape (n_samples,)
        Group codes per attribute, as ``encode_sensitive`` returns them.
    names : list
        The attributes' names.
    groups : list of ndarray
        The distinct values per attribute.
    true_pos, pred_pos : ndarray of shape (n_samples,), dtype bool
        Whether the true label, and the prediction, is the favourable class.
    weights : ndarray of shape (n_samples,) or None
        Non-negative sample weights, already checked.

    Returns
    -------
    table : CellTable
    """
    sizes = [int(values.shape[0]) for values in groups]
    label_cell = 2 * true_pos.astype(np.int8) + pred_pos.astype(np.int8)
    inverse, cell_codes, cell_labels = _row_keys(codes, sizes, label_cell)
    m = cell_codes.shape[0]
    count = np.bincount(inverse, minlength=m).astype(np.int64)
    if weights is None:
        weight = count.astype(np.float64)
        weight_sq = weight
    else:
        weight = np.bincount(inverse, weights=weights, minlength=m)
        weight_sq = np.bincount(inverse, weights=weights * weights, minlength=m)
    return _labelled_table(names, groups, cell_codes, cell_labels, count, weight, weight_sq,
                           weights is not None)


def _decode_keys(present, sizes):
    """The code rows and the label cells of dense keys ``sum_k code_k radix_k + label``."""
    cells = np.empty((present.shape[0], len(sizes)), dtype=np.intp)
    rest = present // 4
    for k in range(len(sizes) - 1, -1, -1):
        cells[:, k] = rest % sizes[k]
        rest = rest // sizes[k]
    return cells, (present % 4).astype(np.int8)


def _labelled_table(names, groups, codes, label_cell, count, weight, weight_sq, weighted):
    """The :class:`CellTable` of cells given by their codes and label cells ``2 t + p``."""
    return CellTable(attributes=list(names), groups=list(groups), codes=codes,
                     y_true=(label_cell >> 1).astype(np.int8),
                     y_pred=(label_cell & 1).astype(np.int8), count=count, weight=weight,
                     weight_sq=weight_sq, weighted=weighted)


def rows_cell_table(sensitive_features, n_samples, true_pos, pred_pos, weights=None):
    """The :class:`CellTable` of in-memory rows, in one blocked pass when the codes are small.

    ``sensitive_features`` is what :func:`~..utils._validation.encode_sensitive`
    takes, or the call's :class:`~..utils._validation.SensitiveFeatures` (whose
    encodings it asks for, and so shares); the result equals
    ``cell_table(*encode_sensitive(...), ...)``. When
    every attribute is an integer or boolean numpy column of small range (or
    is encoded to few groups) and the combinations are few, the rows are
    counted block by block (:data:`_BLOCK_ROWS` rows at a time, so that the
    temporaries stay in the processor's cache) into a dense table of every
    possible (values, true label, prediction): the columns are read in their
    own dtype (an int8 column as int8), the key of a block is built in the
    smallest integer type that holds it, no code or key array of the whole
    length is made, and the groups are the values that occur. Otherwise the
    columns are encoded and keyed as :func:`cell_table` does.
    """
    sensitive = as_sensitive(sensitive_features, n_samples)
    names, columns = sensitive.names, sensitive.columns
    parts = []  # per attribute: (column to read, lowest value, span, its values or None)
    for k, col in enumerate(columns):
        bounds = small_int_bounds(col) if isinstance(col, np.ndarray) else None
        if bounds is not None:
            lo, hi = bounds
            parts.append((col, lo, hi - lo + 1, None))
        else:
            code, values = sensitive.encoded(k)
            parts.append((code.astype(np.min_scalar_type(values.shape[0] - 1)), 0, values.shape[0],
                          values))
    spans = [span for _, _, span, _ in parts]
    n_keys = prod(spans) * 4
    if n_keys > min(_DENSE_KEYS, 4 * n_samples + 1024):
        codes, groups = [], []
        for k, (code, _, _, values) in enumerate(parts):
            if values is None:
                code, values = sensitive.encoded(k)
            codes.append(code.astype(np.intp, copy=False))
            groups.append(values)
        return cell_table(codes, names, groups, true_pos, pred_pos, weights)

    counts, sums = _dense_counts(parts, n_keys, true_pos, pred_pos, weights)
    present = np.flatnonzero(counts)
    cells, label_cell = _decode_keys(present, spans)
    groups = []
    for k, (attr, (_, lo, _, values)) in enumerate(zip(names, parts)):
        if values is None:  # the values that occur, and the cells' codes among them
            seen = np.unique(cells[:, k])
            values = (seen + lo).astype(columns[k].dtype)
            cells[:, k] = np.searchsorted(seen, cells[:, k])
            if values.shape[0] < 2:
                raise ValueError(MSG_SINGLE_GROUP.format(attr=attr, value=values[0]))
        groups.append(values)
    count = counts[present]
    if weights is None:
        weight = weight_sq = count.astype(np.float64)
    else:
        weight, weight_sq = sums[0][present], sums[1][present]
    return _labelled_table(names, groups, cells, label_cell, count, weight, weight_sq,
                           weights is not None)


def _dense_counts(parts, n_keys, true_pos, pred_pos, weights):
    """Rows (and weight sums) per dense key ``(values - lowest, label cell)``, block by block.

    The key of a row, ``sum_k (value_k - lowest_k) * radix_k + 2 t + p``, is
    built in place in two reused buffers of the smallest integer type that
    holds every key and every value read.
    """
    radices, radix = [], 4
    for _, _, span, _ in reversed(parts):
        radices.append(radix)
        radix *= span
    radices.reverse()
    bound = max(n_keys, *(max(abs(lo), abs(lo + span - 1)) for _, lo, span, _ in parts))
    key_dtype = next(np.dtype(d) for d in (np.int16, np.int32, np.int64)
                     if bound <= np.iinfo(d).max)
    n = true_pos.shape[0]
    block = max(_BLOCK_ROWS, n_keys)  # the dense sums cost no more than the rows
    key_buffer = np.empty(min(block, n), dtype=key_dtype)
    part_buffer = np.empty_like(key_buffer)
    counts = np.zeros(n_keys, dtype=np.int64)
    sums = (np.zeros(n_keys), np.zeros(n_keys)) if weights is not None else None
    for start in range(0, n, block):
        stop = min(start + block, n)
        key, part = key_buffer[:stop - start], part_buffer[:stop - start]
        np.multiply(true_pos[start:stop], 2, out=key, dtype=key_dtype)
        np.add(key, pred_pos[start:stop], out=key, dtype=key_dtype)
        for (col, lo, _, _), r in zip(parts, radices):
            if lo:
                np.subtract(col[start:stop], lo, out=part, dtype=key_dtype)
                np.multiply(part, r, out=part)
            else:
                np.multiply(col[start:stop], r, out=part, dtype=key_dtype)
            np.add(key, part, out=key)
        counts += np.bincount(key, minlength=n_keys)
        if sums is not None:
            w = weights[start:stop]
            sums[0][:] += np.bincount(key, weights=w, minlength=n_keys)
            sums[1][:] += np.bincount(key, weights=w * w, minlength=n_keys)
    return counts, sums
