"""The algorithms (SPEC §3, RAWSUM.md): the registry, workloads, GreedyH, isotonic regression and
one module per algorithm family (sqm, baselines, matrix, rawsum), each exporting RECORDS.
"""
