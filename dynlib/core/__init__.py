"""Numbers and symbols: the float/sympy dispatch, input checks, and the compiler that runs the kernels.

``backend`` holds what differs between floats and sympy expressions (arrays, solves, elementary
functions, input checks); ``compile`` turns the algorithms' kernels into compiled code for floats
and keeps them plain Python for sympy.  Every other layer of dynlib imports from here.

Chapter: every chapter (the exact sympy derivations and the compiled numerics share these).
"""

from . import backend, compile

__all__ = ["backend", "compile"]
