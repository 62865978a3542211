"""tk from Python: kernels in .tk files launched on torch tensors (on torch's current stream) or,
in the interpreter, on numpy arrays. A ctypes binding of tk's C API (tk/tk_c.h in libtkc), so it
needs no compiler and works with any Python 3 and torch.

    import tkc
    m = tkc.load("kernels.tk")                  # the GPU when there is one, else the interpreter
    m.softmax[(rows,)](x, y, n_cols, stride, BLOCK=1024)
    m.add[lambda meta: (tkc.cdiv(n, meta["BLOCK"]),)](x, y, out, n)   # grid of the tuned config
"""
import ctypes
import os
import sys

from ._library import library_path

__all__ = ["Context", "Module", "Kernel", "Error", "load", "cdiv", "default_context"]


class Error(RuntimeError):
    """A failure of tk: a compile error (with its diagnostics), a failed launch, a fault."""


def cdiv(a, b):
    return -(-a // b)


# --- the C API ------------------------------------------------------------------------------

_OK, _ERROR, _INVALID = 0, 1, 2
_INTERPRETER, _CUDA = 0, 1
_ARG_DEVICE, _ARG_HOST, _ARG_INT, _ARG_FLOAT = 0, 1, 2, 3


class _Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("address", ctypes.c_uint64), ("host", ctypes.c_void_p),
                ("bytes", ctypes.c_size_t), ("integer", ctypes.c_int64), ("real", ctypes.c_double)]


class _Const(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


_GRID_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64))


def _load_library():
    path = os.environ.get("TKC_LIBRARY") or library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("tkc: cannot load tk's library %s (%s); set TKC_LIBRARY to libtkc.so" % (path, e))
    p, vp, cp, i64, sz = ctypes.POINTER, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64, ctypes.c_size_t
    signatures = {
        "tk_c_api_version": ([], ctypes.c_int),
        "tk_last_error": ([], cp),
        "tk_context_create": ([ctypes.c_int, ctypes.c_int, p(vp)], ctypes.c_int),
        "tk_context_destroy": ([vp], None),
        "tk_context_backend": ([vp], ctypes.c_int),
        "tk_context_device_name": ([vp], cp),
        "tk_context_synchronize": ([vp, vp], ctypes.c_int),
        "tk_module_load_file": ([vp, cp, p(vp)], ctypes.c_int),
        "tk_module_load_string": ([vp, cp, cp, p(vp)], ctypes.c_int),
        "tk_module_destroy": ([vp], None),
        "tk_module_kernel": ([vp, cp, p(vp)], ctypes.c_int),
        "tk_kernel_destroy": ([vp], None),
        "tk_kernel_param_count": ([vp], sz),
        "tk_kernel_param": ([vp, sz, p(cp), p(cp)], ctypes.c_int),
        "tk_config_int": ([vp, cp, p(i64)], ctypes.c_int),
        "tk_kernel_launch": ([vp, p(i64), _GRID_FN, vp, p(_Arg), sz, p(_Const), sz, vp], ctypes.c_int),
    }
    for name, (args, result) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, result
    if lib.tk_c_api_version() != 1:
        raise ImportError("tkc: %s has C API version %d; this package speaks 1" % (path, lib.tk_c_api_version()))
    return lib


_lib = _load_library()


def _check(status):
    if status == _OK:
        return
    message = _lib.tk_last_error().decode(errors="replace")
    raise (ValueError if status == _INVALID else Error)(message)


# --- element types ----------------------------------------------------------------------------

# tk's scalar types as numpy's and torch's (bf16 and the f8 types have no numpy type: their bits
# are 16-bit and 8-bit unsigned integers there).
_NUMPY = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
          "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16", "bf16": "uint16",
          "f32": "float32", "f64": "float64", "f8e4m3": "uint8", "f8e5m2": "uint8"}
_TORCH = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "u8": "uint8",
          "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16", "bf16": "bfloat16",
          "f32": "float32", "f64": "float64", "f8e4m3": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}
# __cuda_array_interface__ typestr (little-endian) of each.
_TYPESTR = {"i1": "|b1", "i8": "|i1", "i16": "<i2", "i32": "<i4", "i64": "<i8", "u8": "|u1", "u16": "<u2",
            "u32": "<u4", "u64": "<u8", "f16": "<f2", "bf16": "<V2", "f32": "<f4", "f64": "<f8",
            "f8e4m3": "|u1", "f8e5m2": "|u1"}


def _const_text(name, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.dtype):
        for tk_name, torch_name in _TORCH.items():
            if getattr(torch, torch_name, None) == value and tk_name not in ("u8",):
                return tk_name
    raise TypeError("constant %s: %r is no int, float, bool, type name or torch dtype" % (name, value))


# --- contexts, modules, kernels -----------------------------------------------------------------

class Context:
    """The GPU (backend "cuda", device N) or the CPU interpreter (backend "interp")."""

    def __init__(self, backend="cuda", device=0):
        if backend not in ("cuda", "interp"):
            raise ValueError("backend must be 'cuda' or 'interp', not %r" % (backend,))
        handle = ctypes.c_void_p()
        _check(_lib.tk_context_create(_CUDA if backend == "cuda" else _INTERPRETER, device, ctypes.byref(handle)))
        self._handle = handle
        self.backend = backend
        self.device_name = _lib.tk_context_device_name(handle).decode()

    def synchronize(self, stream=None):
        _check(_lib.tk_context_synchronize(self._handle, stream))

    def load(self, path):
        return Module(self, path=path)

    def load_string(self, source, name="module.tk"):
        return Module(self, source=source, name=name)

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.tk_context_destroy(self._handle)
            self._handle = None

    def __repr__(self):
        return "tkc.Context(%r: %s)" % (self.backend, self.device_name)


_defaults = {}


def default_context(backend=None):
    """The context `load` uses: the GPU when one answers, else the interpreter (or as asked)."""
    if backend is None:
        backend = os.environ.get("TKC_BACKEND")
    if backend is None:
        try:
            return default_context("cuda")
        except Error:
            return default_context("interp")
    if backend not in _defaults:
        _defaults[backend] = Context(backend)
    return _defaults[backend]


def load(path, context=None, backend=None):
    """The kernels of a .tk file, as attributes: `load("k.tk").softmax`."""
    return Module(context or default_context(backend), path=path)


class Module:
    def __init__(self, context, path=None, source=None, name="module.tk"):
        self.context = context
        handle = ctypes.c_void_p()
        if path is not None:
            _check(_lib.tk_module_load_file(context._handle, os.fspath(path).encode(), ctypes.byref(handle)))
        else:
            _check(_lib.tk_module_load_string(context._handle, source.encode(), name.encode(), ctypes.byref(handle)))
        self._handle = handle
        self._kernels = {}

    def kernel(self, name):
        if name not in self._kernels:
            self._kernels[name] = Kernel(self, name)
        return self._kernels[name]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.kernel(name)
        except ValueError as e:
            raise AttributeError(str(e)) from None

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.tk_module_destroy(self._handle)
            self._handle = None


class Kernel:
    """A kernel of a module: `kernel[grid](*args, **constants, stream=...)`."""

    def __init__(self, module, name):
        self.module = module
        handle = ctypes.c_void_p()
        _check(_lib.tk_module_kernel(module._handle, name.encode(), ctypes.byref(handle)))
        self._handle = handle
        self.name = name
        self.params = []  # (name, type) in order: ("x", "ptr<f32>"), ("n", "i32")
        for i in range(_lib.tk_kernel_param_count(handle)):
            pname, ptype = ctypes.c_char_p(), ctypes.c_char_p()
            _check(_lib.tk_kernel_param(handle, i, ctypes.byref(pname), ctypes.byref(ptype)))
            self.params.append((pname.value.decode(), ptype.value.decode()))
        self._cuda = module.context.backend == "cuda"

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.launch(grid, *args, **kwargs)

    def _arg(self, index, value, keep):
        pname, ptype = self.params[index]
        arg = _Arg()
        if ptype.startswith("ptr<"):
            elem = ptype[4:-1]
            self._pointer(arg, pname, elem, value, keep)
        elif isinstance(value, bool) or (ptype == "i1" and isinstance(value, int)):
            arg.kind, arg.integer = _ARG_INT, int(value)
        elif isinstance(value, int):
            arg.kind, arg.integer = _ARG_INT, value
        elif isinstance(value, float):
            if not ptype.startswith(("f", "bf")):
                raise TypeError("kernel '%s', parameter '%s' (%s): got the float %r" % (self.name, pname, ptype, value))
            arg.kind, arg.real = _ARG_FLOAT, value
        else:
            raise TypeError("kernel '%s', parameter '%s' (%s): got %s" % (self.name, pname, ptype, type(value).__name__))
        return arg

    def _pointer(self, arg, pname, elem, value, keep):
        where = "kernel '%s', parameter '%s' (ptr<%s>)" % (self.name, pname, elem)
        torch = sys.modules.get("torch")
        if self._cuda:
            if torch is not None and isinstance(value, torch.Tensor):
                if not value.is_cuda:
                    raise ValueError("%s: the tensor is on the CPU; the kernel runs on the GPU" % where)
                if value.dtype != getattr(torch, _TORCH[elem], None):
                    raise TypeError("%s: the tensor is %s, not %s" % (where, value.dtype, _TORCH[elem]))
                arg.kind, arg.address = _ARG_DEVICE, value.data_ptr()
                return
            interface = getattr(value, "__cuda_array_interface__", None)
            if interface is not None:
                if interface["typestr"] != _TYPESTR[elem] and not elem.startswith(("bf", "f8")):
                    raise TypeError("%s: the array is %s, not %s" % (where, interface["typestr"], _TYPESTR[elem]))
                arg.kind, arg.address = _ARG_DEVICE, interface["data"][0]
                return
            if isinstance(value, int):  # a raw device address
                arg.kind, arg.address = _ARG_DEVICE, value
                return
            raise TypeError("%s: on the GPU pass a CUDA torch tensor (or an object with __cuda_array_interface__), "
                            "not %s" % (where, type(value).__name__))
        if torch is not None and isinstance(value, torch.Tensor):
            if value.is_cuda:
                raise ValueError("%s: the tensor is on the GPU; this context is the interpreter" % where)
            if value.dtype != getattr(torch, _TORCH[elem], None):
                raise TypeError("%s: the tensor is %s, not %s" % (where, value.dtype, _TORCH[elem]))
            value = value.detach().numpy() if elem != "bf16" else value.detach().view(torch.uint16).numpy()
        np = sys.modules.get("numpy")
        if np is None or not isinstance(value, np.ndarray):
            raise TypeError("%s: the interpreter takes numpy arrays (or CPU torch tensors), not %s"
                            % (where, type(value).__name__))
        if value.dtype != np.dtype(_NUMPY[elem]):
            raise TypeError("%s: the array is %s, not %s" % (where, value.dtype, _NUMPY[elem]))
        if not value.flags["C_CONTIGUOUS"] or not value.flags["WRITEABLE"]:
            raise ValueError("%s: the array must be C-contiguous and writeable (np.ascontiguousarray)" % where)
        keep.append(value)
        arg.kind, arg.host, arg.bytes = _ARG_HOST, value.ctypes.data, value.nbytes

    def launch(self, grid, *args, stream=None, **constants):
        if len(args) != len(self.params):
            missing = ", ".join("%s: %s" % p for p in self.params[len(args):])
            raise TypeError("kernel '%s' takes %d arguments (%s), got %d%s" % (
                self.name, len(self.params), ", ".join(n for n, _ in self.params), len(args),
                "; missing " + missing if missing else ""))
        keep = []
        c_args = (_Arg * max(len(args), 1))(*[self._arg(i, v, keep) for i, v in enumerate(args)])
        names = [(n.encode(), _const_text(n, v).encode()) for n, v in constants.items()]
        c_consts = (_Const * max(len(names), 1))(*[_Const(n, v) for n, v in names])
        grid_fn, fixed, failure = _GRID_FN(), None, []
        if callable(grid):
            def call(config, _user, out):
                try:
                    dims = tuple(grid(_Meta(config, constants)))
                    if not 1 <= len(dims) <= 3:
                        raise ValueError("the grid function returned %d dimensions" % len(dims))
                    for d in range(3):
                        out[d] = int(dims[d]) if d < len(dims) else 1
                    return 0
                except Exception as e:  # reported after the launch fails
                    failure.append(e)
                    return 1
            grid_fn = _GRID_FN(call)
        else:
            dims = (grid,) if isinstance(grid, int) else tuple(grid)
            if not 1 <= len(dims) <= 3:
                raise ValueError("kernel '%s': a grid has 1 to 3 dimensions, got %r" % (self.name, grid))
            fixed = (ctypes.c_int64 * 3)(*[int(d) for d in dims] + [1] * (3 - len(dims)))
        if stream is None and self._cuda and "torch" in sys.modules:
            stream = sys.modules["torch"].cuda.current_stream().cuda_stream
        status = _lib.tk_kernel_launch(self._handle, fixed, grid_fn, None, c_args, len(args), c_consts, len(names),
                                       stream)
        if status != _OK and failure:
            raise failure[0]
        _check(status)

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.tk_kernel_destroy(self._handle)
            self._handle = None

    def __repr__(self):
        return "tkc.Kernel(%s(%s))" % (self.name, ", ".join("%s: %s" % p for p in self.params))


class _Meta:
    """A config's constants for a grid function: meta["BLOCK"] (as Triton's META)."""

    def __init__(self, config, constants):
        self._config, self._constants = config, constants

    def __getitem__(self, name):
        value = ctypes.c_int64()
        if _lib.tk_config_int(self._config, name.encode(), ctypes.byref(value)) == 0:
            return value.value
        if name in self._constants:
            return self._constants[name]
        raise KeyError("the config has no integer constant %r" % name)

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default
