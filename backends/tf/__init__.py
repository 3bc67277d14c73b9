"""TensorFlow (Keras 3): this folder holds every module a framework provides (backends.PARTS)."""
