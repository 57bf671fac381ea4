"""Publishing: one private release (plan → inspect → release, OpenDP's samplers) and the
privacy-budget ledger it is charged to.
"""
