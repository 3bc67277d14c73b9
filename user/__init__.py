"""Run a user's own model file through the suite's measurements (python3 run.py bench --user FILE)."""
