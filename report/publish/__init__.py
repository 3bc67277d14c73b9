"""Publication: every output staged, then moved all or nothing, one publisher at a time."""
