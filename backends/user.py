"""A user's model file: load it, check its interface, and name what is wrong in one line."""
import ast
import importlib.util
import io
import math
import numbers
import sys
import tokenize
import traceback
from dataclasses import dataclass
from pathlib import Path

from catalog import BACKENDS

BUILDERS = {name: f"{name}_model" for name in BACKENDS}  # framework -> the function a file defines
KEYS = ("model", "loss", "optimizer")
LOSS_CALL = {name: f.loss_call for name, f in BACKENDS.items()}
TOLERANCE = (1e-3, 1e-4)  # (rtol, atol) of the accuracy check unless the file sets TOLERANCE
RETRACE_SEED = 0


class UserFileError(ValueError):
    """One line naming the file, the function and what is wrong."""


def one_line(error):
    """`Type: first line of the message` of an exception."""
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"


def first_non_finite(losses):
    """`loss inf at train step 4 (23.8 → 1.53e+14 → 9.2e+26 → inf)` for {step: loss}, `by` step 4
    when the steps before it are not all there; None while every loss is finite (a model whose
    loss is NaN or inf is timed doing NaN arithmetic)."""
    trail, last = [], 0
    for step, loss in sorted(losses.items()):
        gap, last = step > last + 1, step
        trail += (["…"] if gap else []) + [f"{loss:.3g}"]
        if not math.isfinite(loss):
            return (f"loss {loss:.3g} {'by' if gap else 'at'} train step {step} "
                    f"({' → '.join(trail[-6:])})")
    return None


def frameworks_in(path):
    """The frameworks whose builder the file defines, read from its source (nothing imported)."""
    path = Path(path)
    if path.is_dir():
        *most, last = BUILDERS.values()
        raise UserFileError(f"{path}: is a directory; --user takes one model file (a .py "
                            f"defining {', '.join(most)} or {last})")
    if not path.is_file():
        raise UserFileError(f"{path}: no such file")
    source = _source(path)
    try:
        tree = ast.parse(source, str(path))
    except SyntaxError as error:  # a NUL byte: Python names no line, so the first NUL's
        line = error.lineno or source[:source.find("\0")].count("\n") + 1
        raise UserFileError(f"{path}: does not parse: line {line}: {error.msg}") from None
    found = [fw for fw, name in BUILDERS.items() if name in _bound(tree)]
    if not found:
        raise UserFileError(f"{path}: defines none of {', '.join(BUILDERS.values())}")
    return found


def _bound(tree):
    """The names a module binds at its top level: def, assignment (a lambda) or import."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _source(path):
    """The file's text in its declared encoding (UTF-8 unless a PEP 263 coding line says other)."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UserFileError(f"{path}: cannot be read: {error.strerror}") from None
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

    def fail(self, function, what, error=None):
        """Raise the one line `file[:line]: function: what`; the line is where `error` was raised
        in this file (its innermost frame here), when it was."""
        frames = traceback.extract_tb(error.__traceback__) if error else []
        lines = [f.lineno for f in frames if Path(f.filename).resolve() == self.path.resolve()]
        at = f":{lines[-1]}" if lines else ""
        raise UserFileError(f"{self.path}{at}: {function}: {what}")

    def call(self, function, *args):
        """Call the file's `function`; anything it raises becomes one line naming it."""
        fn = getattr(self.module, function, None)
        if not callable(fn):
            self.fail(function, "not defined (or not a function)")
        try:
            return fn(*args)
        except Exception as error:
            self.fail(f"{function}()", f"raised {one_line(error)}", error)

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
        return [self._shape(s, f"{where}: shape {i} of {len(found)}, ")
                for i, s in enumerate(found, 1)]

    def shape(self):
        """The steady-state shape: SHAPE, else the first retrace shape."""
        if hasattr(self.module, "SHAPE"):
            return self._shape(self.module.SHAPE, "SHAPE: ")
        return self.shapes()[0]

    def _shape(self, value, where):
        """A shape as a tuple of positive ints; a zero, negative or fractional dimension fails."""
        shape = tuple(value) if isinstance(value, (list, tuple)) else (value,)
        for dim, n in enumerate(shape):
            if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
                raise UserFileError(f"{self.path}: {where}{shape}: dimension {dim} is {n}; a "
                                    "shape's dimensions are positive ints")
        return shape

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
            if a.size == 0:
                self.fail(f"inputs({shape}, {seed})", f"array {i} has shape {a.shape}: an empty "
                                                      "array (a dimension is 0)")
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
