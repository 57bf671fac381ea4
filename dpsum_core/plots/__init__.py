"""Plotly figure builders and export, shared by the dashboard and the CLI (no Streamlit here).
"""
