"""Yardsticks: minimal single-purpose implementations the engine's speed is measured against.

Each does one seed's API and nothing else, gives the engine's answers call for call
(tests/benchmarks/test_baselines.py), and runs in the same process as the engine in
benchmarks/cron_job_scheduler.py and benchmarks/script_protocol.py, which print the ratios.
"""
