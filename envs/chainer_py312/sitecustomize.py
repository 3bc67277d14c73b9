"""Chainer 7.8.1 in the chainer env on Python 3.12 (run.py adds this folder to its PYTHONPATH):
`numpy.distutils`, which NumPy 1.26 does not install there, served as the stub Chainer asks for
BLAS info (to warn only), and only when imported: NumPy itself still loads where the suite first
imports it, after conftest has set its BLAS threads. Nothing else is changed."""
import importlib.abc
import importlib.machinery
import sys

STUBS = ("numpy.distutils", "numpy.distutils.system_info")


class DistutilsStub(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the two stub modules where no other finder found them (last on sys.meta_path)."""

    def find_spec(self, name, path=None, target=None):
        if name in STUBS:
            return importlib.machinery.ModuleSpec(name, self, is_package=name == STUBS[0])
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        if module.__name__ == STUBS[1]:
            module.get_info = lambda name, notfound_action=0: {}


sys.meta_path.append(DistutilsStub())
