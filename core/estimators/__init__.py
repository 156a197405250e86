"""Estimators of performance summaries: point estimates and their intervals."""
