"""JAX: this folder holds every module a framework provides (backends.PARTS)."""
