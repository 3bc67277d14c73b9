"""A user's model file: load it, check its interface, and name what is wrong in one line."""
import ast
import importlib.util
import io
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

BUILDERS = {"tf": "tf_model", "torch": "torch_model", "chainer": "chainer_model",
            "jax": "jax_model"}
KEYS = ("model", "loss", "optimizer")
LOSS_CALL = {"tf": "loss(target, outputs)", "torch": "loss(outputs, target)",  # as Keras losses,
             "chainer": "loss(outputs, target)",  # F.cross_entropy, F.softmax_cross_entropy
             "jax": "loss(outputs, target)"}  # as optax's losses (logits, labels)
TOLERANCE = (1e-3, 1e-4)  # (rtol, atol) of the accuracy check unless the file sets TOLERANCE
RETRACE_SEED = 0


class UserFileError(ValueError):
    """One line naming the file, the function and what is wrong."""


def one_line(error):
    """`Type: first line of the message` of an exception."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def frameworks_in(path):
    """The frameworks whose builder the file defines, read from its source (nothing imported)."""
    path = Path(path)
    if not path.is_file():
        raise UserFileError(f"{path}: no such file")
    try:
        tree = ast.parse(_source(path), str(path))
    except SyntaxError as error:
        raise UserFileError(f"{path}: does not parse: line {error.lineno}: {error.msg}") from None
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    found = [fw for fw, name in BUILDERS.items() if name in defined]
    if not found:
        raise UserFileError(f"{path}: defines none of {', '.join(BUILDERS.values())}")
    return found


def _source(path):
    """The file's text in its declared encoding (UTF-8 unless a PEP 263 coding line says other)."""
    data = path.read_bytes()
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError:  # an undecodable first line, or an unknown encoding named there
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        byte = data[error.start]
        raise UserFileError(f"{path}: is not {encoding.upper()} text: byte 0x{byte:02x} on line "
                            f"{line} (save it as UTF-8)") from None


@dataclass
class UserFile:
    """The loaded module and what it asks for: steady shape, retrace shapes, tolerance."""
    path: Path
    module: object

    @property
    def name(self):
        return self.path.stem

    def fail(self, function, what):
        raise UserFileError(f"{self.path}: {function}: {what}")

    def call(self, function, *args):
        """Call the file's `function`; anything it raises becomes one line naming it."""
        fn = getattr(self.module, function, None)
        if not callable(fn):
            self.fail(function, "not defined (or not a function)")
        try:
            return fn(*args)
        except Exception as error:
            self.fail(f"{function}()", f"raised {one_line(error)}")

    def shapes(self):
        """The retrace run's shapes: SHAPES, or shapes(rng) with a generator seeded 0."""
        if hasattr(self.module, "SHAPES"):
            found, where = self.module.SHAPES, "SHAPES"
        elif hasattr(self.module, "shapes"):
            import numpy as np  # not at the top: run.py reads frameworks_in without NumPy
            found = self.call("shapes", np.random.default_rng(RETRACE_SEED))
            where = "shapes(rng)"
        else:
            self.fail("SHAPES", "not defined: list the input shapes (or define shapes(rng))")
        if not isinstance(found, (list, tuple)) or not found:
            self.fail(where, f"must be a non-empty list of shapes, got {type(found).__name__}")
        return [_shape(s) for s in found]

    def shape(self):
        """The steady-state shape: SHAPE, else the first retrace shape."""
        return _shape(self.module.SHAPE) if hasattr(self.module, "SHAPE") else self.shapes()[0]

    def tolerance(self):
        rtol, atol = getattr(self.module, "TOLERANCE", TOLERANCE)
        return float(rtol), float(atol)

    def batch(self, shape, seed):
        """inputs(shape, seed) checked: (tuple of NumPy arrays, target array or tuple of them)."""
        import numpy as np
        out = self.call("inputs", shape, seed)
        if not (isinstance(out, tuple) and len(out) == 2):
            self.fail("inputs()", f"must return (inputs, target), got {type(out).__name__}")
        xs, target = out
        xs = xs if isinstance(xs, (tuple, list)) else (xs,)
        for i, a in enumerate((*xs, *(target if isinstance(target, tuple) else (target,)))):
            if not isinstance(a, np.ndarray):
                self.fail("inputs()", f"array {i} is a {type(a).__name__}, not a NumPy array")
        return tuple(xs), target

    def build(self, framework, complete=None):
        """The framework's builder called and checked: {model, loss, optimizer}; `complete(out)`
        fills in what the framework's own objects carry (a compiled keras.Model)."""
        name = BUILDERS[framework]
        out = self.call(name)
        out = complete(out) if complete else out
        if not isinstance(out, dict):
            self.fail(f"{name}()", f"must return a dict with {', '.join(KEYS)}, "
                                   f"got {type(out).__name__}")
        if missing := [k for k in KEYS if k not in out]:
            self.fail(f"{name}()", f"the returned dict lacks {', '.join(missing)}")
        if not callable(out["loss"]):
            self.fail(f"{name}()", f"'loss' must be a callable {LOSS_CALL[framework]}")
        return out


def _shape(value):
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def load(path):
    """Import the user's file as a module; a missing file or an import error is one line."""
    path = Path(path).resolve()
    frameworks_in(path)
    spec = importlib.util.spec_from_file_location(f"graphbench_user_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # the file may import its neighbours
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise UserFileError(f"{path}: does not import: {type(error).__name__}: {error}") from None
    finally:
        sys.path.remove(str(path.parent))
    return UserFile(path, module)
