"""Shared by the CLI's DuckDB tests: skip them where DuckDB cannot be queried through narwhals."""

import pytest

duckdb = pytest.importorskip("duckdb", exc_type=ImportError)


def _duckdb_through_narwhals():
    """Why this environment cannot query DuckDB through narwhals, or None."""
    from skfair_manifold.metrics._groups._frame_cells import frame_cell_table

    tiny = duckdb.sql("SELECT * FROM (VALUES (1, 0, 'a'), (0, 1, 'b')) t(y, p, s)")
    try:
        frame_cell_table(tiny, y_true="y", y_pred="p", sensitive_features="s")
    except ImportError as exc:
        return str(exc)
    return None


_REASON = _duckdb_through_narwhals()
#: the mark of a module whose tests run DuckDB through narwhals
needs_duckdb = pytest.mark.skipif(_REASON is not None, reason=f"DuckDB cannot run: {_REASON}")
