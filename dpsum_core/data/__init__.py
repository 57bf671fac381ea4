"""The private column and what is read from it: reading, cleaning, the public domain, the
records (:class:`~dpsum_core.data.dataset.Dataset`), exact sums, the data summary and its backends.
"""
