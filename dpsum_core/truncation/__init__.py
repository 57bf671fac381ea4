"""Truncation: how θ is chosen (SPEC §2), one module per method (:mod:`.none`/fixed in
:mod:`.registry`, :mod:`.svt`, :mod:`.recursive`), their records in :mod:`.registry`.
"""
