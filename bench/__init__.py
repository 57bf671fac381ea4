"""dpsum benchmarks: scripts that print JSON timings (run them with ``python -m bench.<name>``).

See bench/README.md for what each script measures and bench/SCALING.md for how costs grow.
"""
