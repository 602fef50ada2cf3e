"""The benchmarks of skfair_manifold: each script runs as ``python -m benchmarks.<name>``.

Run from the top of a checkout, ``python -m`` puts that folder first on ``sys.path``: a
script then imports that checkout's ``skfair_manifold`` (and these modules), so it always
measures the code of its own checkout, even when another checkout is installed in the
environment in editable mode. Scripts that measure in child processes start them the
same way, with the checkout's top as their working folder and on their ``PYTHONPATH``.
"""
