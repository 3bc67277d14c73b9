"""Chainer 7.8.1 on Python 3.12 and NumPy 2 (the GPU machine's image): two names it imports that
are gone there, put back as NumPy 1 had them. Nothing else is changed."""
import sys
import types

import numpy

if not hasattr(numpy, "sctypes"):  # removed in NumPy 2.0; Chainer reads it at import
    numpy.sctypes = {
        "int": [numpy.int8, numpy.int16, numpy.int32, numpy.int64],
        "uint": [numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64],
        "float": [numpy.float16, numpy.float32, numpy.float64, numpy.longdouble],
        "complex": [numpy.complex64, numpy.complex128, numpy.clongdouble],
        "others": [bool, object, bytes, str, numpy.void]}
try:
    import numpy.distutils.system_info  # noqa: F401
except ImportError:  # gone on Python 3.12: Chainer asks it for BLAS info, to warn only
    distutils = types.ModuleType("numpy.distutils")
    distutils.system_info = types.ModuleType("numpy.distutils.system_info")
    distutils.system_info.get_info = lambda name: {}
    numpy.distutils = distutils
    sys.modules.update({"numpy.distutils": distutils,
                        "numpy.distutils.system_info": distutils.system_info})
