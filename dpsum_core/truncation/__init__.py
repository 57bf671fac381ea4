"""Truncation: how θ is chosen (SPEC §2), one module per method (:mod:`.fixed` for none and a
fixed θ, :mod:`.svt`, :mod:`.recursive`), each exporting its records (:mod:`.method`: the record
and its parameters' descriptions), collected in :mod:`.registry`.
"""
