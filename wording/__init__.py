"""Verdicts in clinical language: summaries, evidence lines, times and durations, tables, the timeline drawing."""
