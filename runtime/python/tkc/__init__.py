"""tk from Python: kernels in .tk files launched on torch tensors (on torch's current stream) or,
in the interpreter, on numpy arrays. A ctypes binding of tk's C API (tk/tk_c.h in libtkc), so it
needs no compiler and works with any Python 3 and torch.

    import tkc
    m = tkc.load("kernels.tk")                  # the GPU when there is one, else the interpreter
    m.softmax[(rows,)](x, y, n_cols, stride, BLOCK=1024)
    m.add[lambda meta: (tkc.cdiv(n, meta["BLOCK"]),)](x, y, out, n)   # grid of the tuned config
"""
import ctypes
import json
import numbers
import operator
import os
import sys
import threading

from ._library import library_path

__all__ = ["Context", "Module", "Kernel", "TuneReport", "Error", "load", "cdiv", "default_context"]


class Error(RuntimeError):
    """A failure of tk: a compile error (with its diagnostics), a failed launch, a fault."""


def cdiv(a, b):
    return -(-a // b)


# --- the C API ------------------------------------------------------------------------------

_OK, _ERROR, _INVALID = 0, 1, 2
_INTERPRETER, _CUDA = 0, 1
_ARG_DEVICE, _ARG_HOST, _ARG_INT, _ARG_FLOAT, _ARG_UINT = 0, 1, 2, 3, 4


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
        "tk_config_value": ([vp, cp], cp),
        "tk_kernel_param_elem_from": ([vp, sz], cp),
        "tk_kernel_launch": ([vp, p(i64), _GRID_FN, vp, p(_Arg), sz, p(_Const), sz, vp], ctypes.c_int),
        "tk_kernel_tune": ([vp, p(i64), _GRID_FN, vp, p(_Arg), sz, p(_Const), sz, vp, p(cp)], ctypes.c_int),
    }
    optional = {"tk_kernel_tune"}  # (added in version 1: an older libtkc lacks it; tuning then says so)
    for name, (args, result) in signatures.items():
        fn = getattr(lib, name, None)
        if fn is None and name in optional:
            continue
        if fn is None:
            raise ImportError("tkc: %s has no %s" % (path, name))
        fn.argtypes, fn.restype = args, result
    if lib.tk_c_api_version() != 1:
        raise ImportError("tkc: %s has C API version %d; this package speaks 1" % (path, lib.tk_c_api_version()))
    return lib


_lib = _load_library()


def _text(value, what):
    """`value` as C text: a NUL inside would cut it short without a word."""
    data = os.fsencode(value) if isinstance(value, os.PathLike) else str(value).encode()
    if b"\0" in data:
        raise ValueError("%s contains a NUL character: %r" % (what, value))
    return data


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


# Types numpy lacks, passed as their raw bits (_NUMPY's unsigned integers), and their dtype
# names in ml_dtypes (torch's too), whose arrays pass as they are.
_RAW_BITS = {elem: _TORCH[elem] for elem in ("bf16", "f8e4m3", "f8e5m2")}


def _const_text(name, value):
    if isinstance(value, str):
        return value
    np = sys.modules.get("numpy")
    if isinstance(value, bool) or (np is not None and isinstance(value, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.dtype):
        for tk_name, torch_name in _TORCH.items():
            if getattr(torch, torch_name, None) == value:
                return tk_name
    if np is not None:
        try:
            kind = np.dtype(value).name
            for tk_name, np_name in _NUMPY.items():
                if np_name == kind and tk_name not in ("bf16", "f8e4m3", "f8e5m2"):
                    return tk_name
        except TypeError:
            pass
    raise TypeError("constant %s: %r is no int, float, bool, type name or dtype" % (name, value))


# --- contexts, modules, kernels -----------------------------------------------------------------

class Context:
    """The GPU (backend "cuda", device N) or the CPU interpreter (backend "interp")."""

    def __init__(self, backend="cuda", device=0):
        if backend not in ("cuda", "interp"):
            raise ValueError("backend must be 'cuda' or 'interp', not %r" % (backend,))
        # (ctypes would truncate a device past C's int to its low bits: checked here.)
        device = _index(device, "device")
        if not 0 <= device < 2**31:
            raise ValueError("device %d: a GPU's index is 0 or more, below 2^31" % device)
        handle = ctypes.c_void_p()
        _check(_lib.tk_context_create(_CUDA if backend == "cuda" else _INTERPRETER, device, ctypes.byref(handle)))
        self._handle = handle
        self.backend = backend
        self.device = device
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
            _check(_lib.tk_module_load_file(context._handle, _text(path, "the path"), ctypes.byref(handle)))
        else:
            _check(_lib.tk_module_load_string(context._handle, _text(source, "the source"), _text(name, "the name"),
                                              ctypes.byref(handle)))
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


_INT_RANGE = {"i1": (0, 1), "i8": (-2**7, 2**7 - 1), "i16": (-2**15, 2**15 - 1), "i32": (-2**31, 2**31 - 1),
              "i64": (-2**63, 2**63 - 1), "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1), "u32": (0, 2**32 - 1),
              "u64": (0, 2**64 - 1)}
_NO_GRID_FN = _GRID_FN()
_grid_call = threading.local()  # the launch's grid function (`launch`), and `active` while it runs


def _call_grid(config, _user, out):
    """The C callback of every launch with a grid function: calls the thread's current one."""
    launch = getattr(_grid_call, "launch", None)
    if launch is None:  # (cannot happen: a launch sets it around its C call)
        return 1
    grid, given, failure = launch
    meta = _Meta(config, given)
    _grid_call.active = True
    try:
        dims = tuple(grid(meta))
        if not 1 <= len(dims) <= 3:
            raise ValueError("the grid function returned %d dimensions" % len(dims))
        for d in range(3):
            out[d] = _index(dims[d], "the grid function's dimension %d" % d) if d < len(dims) else 1
        return 0
    except BaseException as e:  # raised again after the launch fails
        failure.append(e)
        return 1
    finally:
        meta._config = None  # the config lives only during the call
        _grid_call.active = False


_GRID_TRAMPOLINE = _GRID_FN(_call_grid)
_INT64_MAX = 2**63 - 1


def _index(value, what):
    """An integer (Python's, numpy's, a bool) exactly, or a TypeError naming `what`."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s: got %s %r, not an integer" % (what, type(value).__name__, value)) from None


class Kernel:
    """A kernel of a module: `kernel[grid](*args, **constants, stream=...)`."""

    def __init__(self, module, name):
        self.module = module
        handle = ctypes.c_void_p()
        _check(_lib.tk_module_kernel(module._handle, _text(name, "a kernel name"), ctypes.byref(handle)))
        self._handle = handle
        self.name = name
        self.params = []  # (name, type) in order: ("x", "ptr<f32>"), ("n", "i32")
        self._elem_from = []  # the dtype constant each parameter's element type is ("" for none)
        for i in range(_lib.tk_kernel_param_count(handle)):
            pname, ptype = ctypes.c_char_p(), ctypes.c_char_p()
            _check(_lib.tk_kernel_param(handle, i, ctypes.byref(pname), ctypes.byref(ptype)))
            self.params.append((pname.value.decode(), ptype.value.decode()))
            self._elem_from.append(_lib.tk_kernel_param_elem_from(handle, i).decode())
        self._cuda = module.context.backend == "cuda"
        self._device = module.context.device
        # Per parameter: None for a scalar, else its element type (None when a dtype constant
        # decides it at each launch); the torch dtypes that match, found at the first launch.
        self._elems = [t[4:-1] if t.startswith("ptr<") and not f else ("" if t.startswith("ptr<") else None)
                       for (_, t), f in zip(self.params, self._elem_from)]
        self._torch_dtypes = None
        self._local = threading.local()  # each thread's argument array (ctypes frees the GIL in C)
        self._consts = {}  # the keyword constants of earlier launches, as C arrays
        self._grids = {}

    def __getitem__(self, grid):
        return _Launcher(self, grid)

    def _where(self, index, elem=None):
        pname, ptype = self.params[index]
        return "kernel '%s', parameter '%s' (%s)" % (self.name, pname, "ptr<%s>" % elem if elem else ptype)

    def _scalar(self, arg, index, ptype, value):
        if ptype.startswith(("f", "bf")):
            if isinstance(value, numbers.Real) and not isinstance(value, bool):
                arg.kind, arg.real = _ARG_FLOAT, float(value)
                return
            raise TypeError("%s: got %s %r, not a number" % (self._where(index), type(value).__name__, value))
        if isinstance(value, float):
            raise TypeError("%s: got the float %r" % (self._where(index), value))
        v = _index(value, self._where(index))
        low, high = _INT_RANGE.get(ptype, (-2**63, 2**63 - 1))
        if not low <= v <= high:
            raise OverflowError("%s: %d does not fit" % (self._where(index), v))
        if v > _INT64_MAX:
            arg.kind, arg.integer = _ARG_UINT, v - 2**64
        else:
            arg.kind, arg.integer = _ARG_INT, v

    def _pointer(self, arg, index, elem, value, keep):
        torch = sys.modules.get("torch")
        if self._cuda:
            if torch is not None and isinstance(value, torch.Tensor):
                if value.dtype != getattr(torch, _TORCH[elem], None):
                    raise TypeError("%s: the tensor is %s, not %s" % (self._where(index, elem), value.dtype, _TORCH[elem]))
                if not value.is_cuda:
                    raise ValueError("%s: the tensor is on the CPU; the kernel runs on the GPU" % self._where(index, elem))
                arg.kind, arg.address = _ARG_DEVICE, value.data_ptr()
                return
            interface = getattr(value, "__cuda_array_interface__", None)
            if interface is not None:
                typestr = interface["typestr"]
                if typestr[1:] != _TYPESTR[elem][1:] and not (elem.startswith(("bf", "f8")) and typestr[2:] == _TYPESTR[elem][2:]):
                    raise TypeError("%s: the array is %s, not %s" % (self._where(index, elem), typestr, _TYPESTR[elem]))
                arg.kind, arg.address = _ARG_DEVICE, interface["data"][0]
                return
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:  # a raw device address
                arg.kind, arg.address = _ARG_DEVICE, value
                return
            raise TypeError("%s: on the GPU pass a CUDA torch tensor (or an object with __cuda_array_interface__), "
                            "not %s" % (self._where(index, elem), type(value).__name__))
        if torch is not None and isinstance(value, torch.Tensor):
            if value.is_cuda:
                raise ValueError("%s: the tensor is on the GPU; this context is the interpreter" % self._where(index, elem))
            if value.dtype != getattr(torch, _TORCH[elem], None):
                raise TypeError("%s: the tensor is %s, not %s" % (self._where(index, elem), value.dtype, _TORCH[elem]))
            bits = {2: torch.int16, 1: torch.int8}.get(value.element_size()) if elem in ("bf16", "f8e4m3", "f8e5m2") else None
            value = (value.detach().view(bits) if bits is not None else value.detach()).numpy()
            if bits is not None:
                value = value.view(_NUMPY[elem])
        np = sys.modules.get("numpy")
        if np is None or not isinstance(value, np.ndarray):
            raise TypeError("%s: the interpreter takes numpy arrays (or CPU torch tensors), not %s"
                            % (self._where(index, elem), type(value).__name__))
        if elem in _RAW_BITS and value.dtype.name == _RAW_BITS[elem]:  # ml_dtypes' arrays: their bits as they are
            value = value.view(_NUMPY[elem])
        if value.dtype != np.dtype(_NUMPY[elem]):
            raise TypeError("%s: the array is %s, not %s%s" % (
                self._where(index, elem), value.dtype, _NUMPY[elem],
                " (%s's raw bits: numpy has no %s; or ml_dtypes' %s)" % (elem, elem, _RAW_BITS[elem])
                if elem in _RAW_BITS else ""))
        if not value.flags["C_CONTIGUOUS"] or not value.flags["WRITEABLE"]:
            raise ValueError("%s: the array must be C-contiguous and writeable (np.ascontiguousarray)"
                             % self._where(index, elem))
        keep.append(value)
        arg.kind, arg.host, arg.bytes = _ARG_HOST, value.ctypes.data, value.nbytes

    def _constants(self, constants):
        # (The types are part of the key: 16, 16.0 and True are equal in Python, not to the kernel.)
        key = (tuple(constants.items()), tuple(map(type, constants.values())))
        try:
            return self._consts[key]
        except (KeyError, TypeError):  # (an unhashable value is reported below)
            pass
        names = [(_text(n, "a constant's name"), _text(_const_text(n, v), "constant " + n)) for n, v in key[0]]
        array = (_Const * max(len(names), 1))(*[_Const(n, v) for n, v in names])
        entry = (array, len(names), dict(key[0]))
        if len(self._consts) < 64:
            self._consts[key] = entry
        return entry

    def launch(self, grid, *args, stream=None, **constants):
        """`kernel[grid](*args, **constants)`: enqueues the kernel (tuned first on the first launch
        of each key, when it has an @autotune space and the constants fix none of its values)."""
        self._enqueue(None, grid, args, stream, constants)

    def tune(self, grid, *args, stream=None, **constants):
        """Tunes over the kernel's @autotune space for these arguments (on the GPU every config
        runs on them: outputs are overwritten) and returns the TuneReport; later launches of this
        key run the winner. A key tuned before (in this process or the tuning database) is not
        timed again. The interpreter times nothing: it chooses the first config that fits,
        untimed, and runs no config."""
        report = ctypes.c_char_p()
        self._enqueue(report, grid, args, stream, constants)
        return TuneReport(json.loads(report.value.decode()))

    def _enqueue(self, report, grid, args, stream, constants):
        """The launch (report None) or the tuning (report: where the C API puts its JSON)."""
        if getattr(_grid_call, "active", False):  # (it would overwrite the outer launch's arguments)
            raise ValueError("a grid function may not launch kernels")
        params = self.params
        if len(args) != len(params):
            missing = ", ".join("%s: %s" % p for p in params[len(args):])
            raise TypeError("kernel '%s' takes %d arguments (%s), got %d%s" % (
                self.name, len(params), ", ".join(n for n, _ in params), len(args),
                "; missing " + missing if missing else ""))
        c_consts, const_count, given = self._constants(constants) if constants else (None, 0, {})
        c_args = getattr(self._local, "args", None)
        if c_args is None:
            c_args = self._local.args = (_Arg * max(len(params), 1))()
        keep = []
        torch = sys.modules.get("torch")
        if self._cuda and torch is not None and self._torch_dtypes is None:
            self._torch_dtypes = [getattr(torch, _TORCH[e], None) if e else None for e in self._elems]
        fast = self._torch_dtypes if self._cuda and torch is not None else None
        for i, value in enumerate(args):
            elem = self._elems[i]
            if elem is None:
                self._scalar(c_args[i], i, params[i][1], value)
                continue
            # The common case first: a CUDA tensor of the parameter's own dtype.
            if fast is not None and fast[i] is not None and isinstance(value, torch.Tensor) and \
                    value.dtype is fast[i] and value.is_cuda:
                arg = c_args[i]
                arg.kind, arg.address = _ARG_DEVICE, value.data_ptr()
                continue
            if not elem:  # ptr<T>: the launch's T, else T's default
                t = given.get(self._elem_from[i])
                elem = _const_text(self._elem_from[i], t) if t is not None else params[i][1][4:-1]
                if elem not in _NUMPY:
                    raise ValueError("constant '%s' is a type (f16, bf16, f32...), got %s" % (self._elem_from[i], elem))
            self._pointer(c_args[i], i, elem, value, keep)
        grid_fn, fixed, failure = _NO_GRID_FN, None, []
        if callable(grid):
            grid_fn = _GRID_TRAMPOLINE  # (one C callback for every launch: making one costs microseconds)
        else:
            # (Only grids of ints are cached: (1.0,) equals (1,) as a key but is no grid.)
            exact = type(grid) is int or (type(grid) is tuple and all(type(d) is int for d in grid))
            fixed = self._grids.get(grid) if exact else None
            if fixed is None:
                try:  # a sequence of dimensions, or one (an int, a numpy integer: _index checks it)
                    dims = tuple(grid)
                except TypeError:
                    dims = (grid,)
                if not 1 <= len(dims) <= 3:
                    raise ValueError("kernel '%s': a grid has 1 to 3 dimensions, got %r" % (self.name, grid))
                values = [_index(d, "kernel '%s': grid dimension" % self.name) for d in dims] + [1] * (3 - len(dims))
                if not all(0 <= v <= _INT64_MAX for v in values):  # (0: an empty grid, nothing runs)
                    raise ValueError("kernel '%s': grid %r has a dimension out of range" % (self.name, grid))
                fixed = (ctypes.c_int64 * 3)(*values)
                if exact and len(self._grids) < 64:
                    self._grids[grid] = fixed
        if stream is None and torch is not None and self._cuda:
            stream = torch._C._cuda_getCurrentRawStream(self._device)  # torch's current stream there
        with_grid_fn = grid_fn is not _NO_GRID_FN
        # (The launch of a finalizer, say, between here and the C call gets its own and restores this.)
        outer = getattr(_grid_call, "launch", None) if with_grid_fn else None
        try:
            if with_grid_fn:
                _grid_call.launch = (grid, given, failure)
            if report is None:
                status = _lib.tk_kernel_launch(self._handle, fixed, grid_fn, None, c_args, len(args), c_consts,
                                               const_count, stream)
            else:
                entry = getattr(_lib, "tk_kernel_tune", None)
                if entry is None:
                    raise Error("tkc: %s has no tk_kernel_tune (an older libtkc): tuning needs a newer one"
                                % _lib._name)
                status = entry(self._handle, fixed, grid_fn, None, c_args, len(args), c_consts, const_count, stream,
                               ctypes.byref(report))
        finally:
            if with_grid_fn:
                _grid_call.launch = outer  # (it held the grid function and the constants)
        # An interrupt inside a grid function is raised even where the tuner went on without
        # the config it failed for.
        for e in failure:
            if not isinstance(e, Exception):
                raise e
        if status != _OK and failure:
            raise failure[0]
        _check(status)

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.tk_kernel_destroy(self._handle)
            self._handle = None

    def __repr__(self):
        return "tkc.Kernel(%s(%s))" % (self.name, ", ".join("%s: %s" % p for p in self.params))


class TuneReport:
    """A tuning's outcome (Kernel.tune): `best` (the winner's constants, as a launch takes them),
    `best_ms` (its final round's median if it had one), `configs` (each config's "config" text,
    "constants", "ms" or None, "final_ms" (a finalist's median when the configs within 5% of the
    best ran in turn; else None) and "status"), `from_database` (nothing was timed: the winner
    was known), `compile_seconds`, `time_seconds`."""

    def __init__(self, data):
        self.configs = [dict(c, constants={k: _value_of(v) for k, v in c["constants"].items()},
                             final_ms=c.get("final_ms")) for c in data["configs"]]
        self.best_index = data["best"]
        winner = self.configs[self.best_index]
        self.best, self.best_text = winner["constants"], winner["config"]
        self.best_ms = winner["ms"] if winner["final_ms"] is None else winner["final_ms"]
        self.from_database = data["from_database"]
        self.compile_seconds, self.time_seconds = data["compile_seconds"], data["time_seconds"]

    def table(self):
        """The report as `tkc tune` prints it: one line per config, its time and status."""
        width = max([6] + [len(c["config"]) for c in self.configs])
        def ms(value):
            return "-" if value is None else "%.4f" % value
        lines = ["%-*s  %10s  %10s  status" % (width, "config", "time (ms)", "final (ms)")]
        for i, c in enumerate(self.configs):
            status = c["status"] or ("best" if i == self.best_index else "")
            lines.append("%-*s  %10s  %10s  %s" % (width, c["config"], ms(c["ms"]), ms(c["final_ms"]), status))
        return "\n".join(lines)

    def __repr__(self):
        return "tkc.TuneReport(best %s, %s)" % (self.best_text, "-" if self.best_ms is None else "%.4f ms" % self.best_ms)


class _Launcher:
    """`kernel[grid]`: call it with the arguments."""
    __slots__ = ("kernel", "grid")

    def __init__(self, kernel, grid):
        self.kernel, self.grid = kernel, grid

    def __call__(self, *args, **kwargs):
        return self.kernel.launch(self.grid, *args, **kwargs)


_NAMES = {}  # constants' names as C text, for grid functions


class _Meta:
    """A config's constants for a grid function, the kernel's defaults included: meta["BLOCK"]
    (as Triton's META). Valid only during the grid function's call."""

    def __init__(self, config, constants):
        self._config, self._constants = config, constants

    def __getitem__(self, name):
        if self._config is None:
            raise RuntimeError("a config is valid only inside its grid function")
        key = _NAMES.get(name)
        if key is None:
            key = _text(name, "a constant's name")
            if len(_NAMES) < 256:
                _NAMES[name] = key
        text = _lib.tk_config_value(self._config, key)
        if text is not None:
            return _value_of(text.decode())
        if name in self._constants:
            return self._constants[name]
        raise KeyError("the config has no constant %r" % name)

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default


def _value_of(text):
    """A constant's text as Python's value: 128, 0.5, True, or a type's name ("f16")."""
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text
