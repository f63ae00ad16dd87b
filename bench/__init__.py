"""Benchmark harness for tui-reader: scale and speed against budgets and reference engines.

Run ``python -m bench [CORPUS] [--quick]``; see bench/run.py.
"""
