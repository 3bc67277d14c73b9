"""Benchmark suites run by pytest-benchmark."""
