"""Framework-neutral model specs, weights, data and the NumPy reference (imports no framework)."""
from .spec import ModelSpec, forward_flops, param_count, train_flops
from .weights import init_params, synthetic_batch
from .zoo import MODELS, build
