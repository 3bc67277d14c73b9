"""The build: reads saved runs and decides what each number means, once, beside it (load → conform → select → ratios → records → best)."""
