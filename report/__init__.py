"""Turn saved pytest-benchmark runs in results/ into tables (and charts) for the README."""
