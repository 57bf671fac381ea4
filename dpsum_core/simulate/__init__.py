"""Simulation: ExperimentConfig → run_experiment → ExperimentResult, random streams, the budget
ledger, headline metrics, θ analytics and the decision view (error against ε).
"""
