"""Streamlit helpers of the dpsum dashboard: state, widgets, cached engine calls, sharing.

Pages import from here; this package imports dpsum_core, never the reverse. Widget keys are
documented in :mod:`dpsum_ui.keys`.
"""
