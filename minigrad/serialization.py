"""minigrad.save and minigrad.load: tensors and the containers checkpoints are made of.

A file is a zip archive (NumPy's .npz layout): one .npy entry per array, plus a JSON index,
`minigrad_index.json`, that describes the saved object and points at the arrays. Loading reads
the index as JSON and the arrays with `allow_pickle=False`, so a file, whoever wrote it, can
never run code. What can be saved: tensors (nn.Parameter included), NumPy arrays and scalars,
dict / OrderedDict / Counter / list / tuple / torch.Size, None, bool, int, float, str, bytes, and
minigrad dtypes and devices -- which covers model, optimizer and scheduler state_dicts. Those types
exactly: a subclass (a namedtuple, an IntEnum, a defaultdict, a NumPy masked array) is refused
rather than saved as its base type, since it would not load back as what was saved.

A tensor is saved as its data (no autograd history), dtype, shape, device and requires_grad;
an nn.Parameter is loaded back as an nn.Parameter. One tensor object saved in two places is
loaded as one tensor object, and so is a container (list, dict, tuple) saved in two places;
distinct tensors that share memory (views) are loaded as copies. An OrderedDict or Counter keeps
its attributes (a state_dict's `_metadata`), as pickle keeps them for torch.save.
"""
import base64
import io
import json
import os
import zipfile
from collections import Counter, OrderedDict

import numpy as np

from . import dtypes as _dt
from .devices import CPU, canonical, device as _device_cls
from .tensor import Size, Tensor, _make

_INDEX = "minigrad_index.json"
_ZIP_MAGIC = b"PK\x03\x04"
_FORMAT = "minigrad.save"
_VERSION = 1
_KEY_TYPES = (type(None), bool, int, float, str, bytes, tuple, np.generic)
_CONTAINERS = {dict: "dict", OrderedDict: "ordereddict", Counter: "counter", list: "list", tuple: "tuple",
               Size: "size"}
# the types save takes exactly, in the order a subclass is named by ("a subclass of tuple")
_BASES = (bool, OrderedDict, Counter, dict, list, Size, tuple, int, float, str, bytes, np.ndarray)
_SUPPORTED = ("supported: tensors, NumPy arrays, dict, OrderedDict, Counter, list, tuple, None, bool, int, "
              "float, str, bytes, dtypes and devices")
_DTYPES = {d.name: d for d in _dt.ALL}
_CONTAINER_KINDS = ("list", "tuple", "size", "dict", "ordereddict", "counter")


def _parameter_class():
    from .nn.parameter import Parameter  # imported here: nn sits above this module
    return Parameter


# ---- save -------------------------------------------------------------------------------------

class _Encoder:
    """Turns an object into a JSON-able description, collecting its arrays on the way."""

    def __init__(self):
        self.arrays = []      # (entry name, host ndarray)
        self.tensors = []     # the index's tensor table
        self._memo = {}       # id(tensor or ndarray) -> its node, so a shared object is saved once
        self._keep = []       # the memoized objects, so their ids stay unique while encoding
        self._open = set()    # ids of the containers being encoded, to catch reference cycles
        self._done = {}       # id(container) -> its node: one saved twice is referred to the second time
        self._shared = 0      # how many containers are referred to

    def _array(self, host):
        name = f"a{len(self.arrays)}"
        self.arrays.append((name, host if host.flags.c_contiguous else host.copy(order="C")))
        return name

    def encode(self, obj, where):
        # exact types: a subclass (namedtuple, IntEnum, defaultdict, np.ma.MaskedArray, np.matrix)
        # would load back as its base, losing what the subclass adds (a mask)
        cls = type(obj)
        if obj is None:
            return {"type": "none"}
        if cls is bool:
            return {"type": "bool", "value": obj}
        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if cls is np.ndarray:
            return self._ndarray(obj, where)
        if isinstance(obj, np.generic):  # before float: np.float64 is a float subclass
            return {"type": "numpy_scalar", "of": self._ndarray(np.asarray(obj), where)}
        if cls is int:
            return {"type": "int", "value": obj}
        if cls is float:
            return {"type": "float", "value": obj}
        if cls is str:
            return {"type": "str", "value": obj}
        if cls is bytes:
            return {"type": "bytes", "value": base64.b64encode(obj).decode("ascii")}
        if isinstance(obj, _dt.dtype):
            return {"type": "dtype", "value": obj.name}
        if isinstance(obj, _device_cls):
            return {"type": "device", "value": str(obj)}
        if cls in _CONTAINERS:
            key = id(obj)
            if key in self._open:
                raise ValueError(f"minigrad.save: the object contains itself (a reference cycle at {where})")
            if key in self._done:  # saved before: refer to it, so that it loads as one object
                node = self._done[key]
                if "share" not in node:
                    node["share"] = self._shared
                    self._shared += 1
                return {"type": "shared", "id": node["share"]}
            self._open.add(key)
            try:
                node = self._container(obj, where)
            finally:
                self._open.discard(key)
            self._done[key] = node
            self._keep.append(obj)
            return node
        base = next((b for b in _BASES if isinstance(obj, b)), None)
        if base is not None:
            raise TypeError(f"minigrad.save: cannot save an object of type {cls.__name__} (at {where}), a "
                            f"subclass of {base.__name__}: it would load as a plain {base.__name__}, so convert it "
                            f"first; {_SUPPORTED} (not subclasses)")
        raise TypeError(f"minigrad.save: cannot save an object of type {cls.__name__} (at {where}); {_SUPPORTED}")

    def _container(self, obj, where):
        kind = _CONTAINERS[type(obj)]
        if isinstance(obj, dict):
            items = []
            for k, v in obj.items():
                if not (type(k) in _KEY_TYPES or isinstance(k, np.generic)):
                    raise TypeError(f"minigrad.save: cannot save a dict key of type {type(k).__name__} "
                                    f"(at {where}); keys may be None, bool, int, float, str, bytes or tuples")
                items.append([self.encode(k, where), self.encode(v, f"{where}[{k!r}]")])
            node = {"type": kind, "items": items}
            # an OrderedDict's own attributes, as pickle keeps them for torch.save: a state_dict's
            # `_metadata` (each module's version, which _load_from_state_dict is given)
            attrs = getattr(obj, "__dict__", None)
            if attrs:
                bad = next((name for name in attrs if not _attr_name_ok(name)), None)
                if bad is not None:
                    raise TypeError(f"minigrad.save: cannot save the attribute {bad!r} of a "
                                    f"{type(obj).__name__} (at {where}): not a plain identifier")
                node["attrs"] = [[name, self.encode(v, f"{where}.{name}")] for name, v in attrs.items()]
            return node
        return {"type": kind, "items": [self.encode(v, f"{where}[{i}]") for i, v in enumerate(obj)]}

    def _remember(self, obj, node):
        self._memo[id(obj)] = node
        self._keep.append(obj)
        return node

    def _tensor(self, t):
        if id(t) in self._memo:
            return self._memo[id(t)]
        host = t._device.backend.to_numpy(t._data)
        self.tensors.append({
            "array": self._array(host),
            "dtype": t.dtype.name,
            "shape": list(host.shape),
            "device": str(t._device),
            "requires_grad": bool(t._requires_grad),
            "parameter": isinstance(t, _parameter_class()),
        })
        return self._remember(t, {"type": "tensor", "id": len(self.tensors) - 1})

    def _ndarray(self, a, where):
        if id(a) in self._memo:
            return self._memo[id(a)]
        if a.dtype.hasobject:
            raise TypeError(f"minigrad.save: cannot save a NumPy array of Python objects (at {where})")
        return self._remember(a, {"type": "ndarray", "array": self._array(a)})


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save obj to f (a path or a writable binary file object). The pickle_* arguments exist so
    that torch calls run unchanged; minigrad never pickles."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        parent = path.rpartition(os.sep)[0] if isinstance(path, str) else ""
        if parent and not os.path.isdir(parent):  # torch checks this first, before anything else
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    enc = _Encoder()
    index = {"format": _FORMAT, "version": _VERSION, "tensors": enc.tensors, "root": enc.encode(obj, "the root")}
    text = json.dumps(index, separators=(",", ":"))
    # everything is encoded before the file is opened: a failed save leaves no half-written file
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            _write_zip(fh, enc.arrays, text)
    else:
        _write_zip(f, enc.arrays, text)


def _write_zip(fh, arrays, index_text):
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, host in arrays:
            with zf.open(name + ".npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, host, allow_pickle=False)
        # a fixed timestamp, as the array entries get: the same object always gives the same bytes
        zf.writestr(zipfile.ZipInfo(_INDEX, date_time=(1980, 1, 1, 0, 0, 0)), index_text)


# ---- load -------------------------------------------------------------------------------------

class _Damaged(Exception):
    """Raised inside load for anything that makes the file unreadable as ours."""


def _describe(f):
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    name = getattr(f, "name", None)
    return name if isinstance(name, str) else f"the file object {type(f).__name__}"


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load what save wrote. f: a path or a readable binary file object. map_location moves
    tensors: a device or device string for all of them, a dict {saved location: new location}
    such as {'cuda:0': 'cpu'}, or a callable (tensor on cpu, saved location) -> tensor or None.

    Loading never executes code, so weights_only (accepted for torch compatibility) changes nothing.
    """
    name = _describe(f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _load(fh, name, map_location)
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())  # reading a zip needs to seek to its end
    return _load(f, name, map_location)


def _not_ours(name, why):
    return RuntimeError(f"minigrad.load: {name} is not a file written by minigrad.save ({why})")


def _load(fh, name, map_location):
    start = fh.tell()
    magic = fh.read(len(_ZIP_MAGIC))
    fh.seek(start)
    if isinstance(magic, str):
        raise TypeError(f"minigrad.load: {name} is open in text mode; open it with 'rb'")
    if not magic:
        raise _not_ours(name, "the file is empty")
    if len(magic) < len(_ZIP_MAGIC) and _ZIP_MAGIC.startswith(magic):
        raise _not_ours(name, f"a truncated archive of {len(magic)} bytes")
    if magic != _ZIP_MAGIC and magic != np.lib.format.MAGIC_PREFIX[:len(magic)]:
        raise _not_ours(name, "it is not a zip archive")
    try:
        npz = np.load(fh, allow_pickle=False)
    except Exception as e:  # zipfile and NumPy's header parser raise many types on damaged bytes
        raise _not_ours(name, f"a truncated or damaged archive: {_reason(e)}") from None
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise _not_ours(name, "a single NumPy .npy array, not a minigrad.save archive")
    with npz:
        names = npz.zip.namelist()
        if _INDEX not in npz.files:
            hint = ("it looks like a PyTorch checkpoint written by torch.save; load it with torch and save "
                    "its tensors as NumPy arrays" if any(n.endswith("data.pkl") for n in names)
                    else f"a zip archive without the index entry {_INDEX}")
            raise _not_ours(name, hint)
        try:
            raw = npz[_INDEX]
            if not isinstance(raw, bytes):
                raise _Damaged(f"the entry {_INDEX} is not JSON text")
            index = json.loads(raw.decode("utf-8"))
            if not isinstance(index, dict) or index.get("format") != _FORMAT:
                raise _Damaged("its index does not name the minigrad.save format")
            if index.get("version") != _VERSION:
                raise _Damaged(f"format version {index.get('version')!r}; this minigrad reads version {_VERSION}")
            dec = _Decoder(npz, index.get("tensors"), map_location)
            dec.read_arrays()
        except _Damaged as e:
            raise _not_ours(name, str(e)) from None
        except Exception as e:  # anything else reading the archive: damaged bytes
            raise _not_ours(name, f"damaged: {_reason(e)}") from None
        # the index is checked as it is decoded; errors about devices (map_location, a missing GPU)
        # pass through as they are
        try:
            return dec.decode(index.get("root"))
        except (zipfile.BadZipFile, EOFError, OSError, RecursionError) as e:
            raise _not_ours(name, f"damaged: {_reason(e)}") from None
        except _Damaged as e:
            raise _not_ours(name, str(e)) from None


def _reason(e):
    """An exception as a reason in load's message: its text, with its type where that is not a
    usual one (tokenize.TokenError's text alone is a tuple)."""
    text, cls = str(e), type(e)
    if isinstance(e, (ValueError, OSError, EOFError, zipfile.BadZipFile)) and text:
        return text
    name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
    return f"{name}: {text}" if text else name


def _field(node, key, kind, what):
    value = node.get(key) if isinstance(node, dict) else None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _Damaged(f"its index has a {what} without a valid '{key}'")
    return value


class _Decoder:
    def __init__(self, npz, tensor_table, map_location):
        if not isinstance(tensor_table, list):
            raise _Damaged("its index has no tensor table")
        self.npz = npz
        self.table = tensor_table
        self.map_location = map_location
        self.hosts = {}       # entry name -> ndarray, read while the archive is open
        self.tensors = {}     # tensor id -> the loaded tensor, so shared entries stay shared
        self.shared = {}      # shared container id -> the loaded container

    def _read(self, entry):
        if entry in self.hosts:
            return self.hosts[entry]
        if not isinstance(entry, str) or entry not in self.npz.files:
            raise _Damaged(f"its index names an array {entry!r} that the archive does not hold")
        member = entry + ".npy" if entry + ".npy" in self.npz.zip.NameToInfo else entry
        try:
            # read as NpzFile does, streaming, then to the end of the entry: a header damaged into
            # describing fewer bytes would leave the rest unread, and the entry's CRC unchecked
            with self.npz.zip.open(member) as fh:
                if fh.read(len(np.lib.format.MAGIC_PREFIX)) != np.lib.format.MAGIC_PREFIX:
                    raise _Damaged(f"the entry {entry!r} is not a .npy array")
            with self.npz.zip.open(member) as fh:
                host = np.lib.format.read_array(fh, allow_pickle=False)
                trailing = fh.read(1)
        except _Damaged:
            raise
        except Exception as e:  # any failure to parse the entry's bytes
            if isinstance(e, ValueError) and "allow_pickle" in str(e):
                raise _Damaged(f"the array entry {entry!r} holds pickled Python objects, which "
                               "minigrad.load never unpickles") from None
            raise _Damaged(f"the array entry {entry!r} cannot be read: {_reason(e)}") from None
        if trailing:
            raise _Damaged(f"the array entry {entry!r} holds more bytes than its header describes")
        self.hosts[entry] = host
        return host

    def read_arrays(self):
        """Read and check every tensor's array now, while the archive is open."""
        for spec in self.table:
            host = self._read(_field(spec, "array", str, "tensor"))
            dtype = _field(spec, "dtype", str, "tensor")
            shape = _field(spec, "shape", list, "tensor")
            stored = "uint16" if dtype == "bfloat16" else dtype  # (bfloat16 is saved as its bits)
            if host.dtype.name != stored or list(host.shape) != shape:
                raise _Damaged(f"the array {spec['array']!r} is {host.dtype.name} {list(host.shape)}, but "
                               f"the index says {dtype} {shape}")
            if host.dtype.newbyteorder("=") in _dt._BY_NP:
                _dt.from_numpy_dtype(host.dtype.newbyteorder("="))  # (a small dtype switches on its wrappers)
            else:
                raise _Damaged(f"the array {spec['array']!r} has dtype {host.dtype}, which minigrad tensors "
                               "cannot hold")
            try:
                _device_cls(_field(spec, "device", str, "tensor"))
            except RuntimeError:
                raise _Damaged(f"its index names an invalid device {spec['device']!r}") from None
            if not isinstance(spec.get("requires_grad"), bool) or not isinstance(spec.get("parameter"), bool):
                raise _Damaged("its index has a tensor without valid 'requires_grad' and 'parameter' flags")
            if spec["requires_grad"] and not _dt.floating(host):
                raise _Damaged(f"its index marks the {dtype} tensor {spec['array']!r} as requiring grad")

    def decode(self, node):
        kind = _field(node, "type", str, "node")
        if kind == "shared":  # a container saved earlier in the file
            sid = _field(node, "id", int, "shared node")
            if sid not in self.shared:
                raise _Damaged(f"its index refers to shared container {sid} before it is defined")
            return self.shared[sid]
        if kind in _CONTAINER_KINDS:
            out = self._container(node, kind)
            if isinstance(node, dict) and "share" in node:
                self.shared[_field(node, "share", int, f"{kind} node")] = out
            return out
        if kind == "none":
            return None
        if kind in ("bool", "int", "float", "str"):
            value = node.get("value")
            expected = {"bool": bool, "int": int, "float": (int, float), "str": str}[kind]
            if not isinstance(value, expected) or (kind != "bool" and isinstance(value, bool)):
                raise _Damaged(f"its index has a {kind} node without a valid value")
            if kind == "float":
                try:
                    return float(value)
                except OverflowError:  # an int too large for a float
                    raise _Damaged("its index has a float node without a valid value") from None
            return value
        if kind == "bytes":
            try:
                return base64.b64decode(_field(node, "value", str, "bytes node"), validate=True)
            except ValueError:
                raise _Damaged("its index has a bytes node that is not base64") from None
        if kind == "tensor":
            tid = _field(node, "id", int, "tensor node")
            if not 0 <= tid < len(self.table):
                raise _Damaged(f"its index refers to tensor {tid}, but holds {len(self.table)}")
            if tid not in self.tensors:
                self.tensors[tid] = self._tensor(self.table[tid])
            return self.tensors[tid]
        if kind == "ndarray":
            host = self._read(_field(node, "array", str, "ndarray node"))
            if host.dtype.hasobject:
                raise _Damaged("its index has an array of Python objects")
            return host
        if kind == "numpy_scalar":
            arr = self.decode(node.get("of"))
            if not isinstance(arr, np.ndarray) or arr.shape != ():
                raise _Damaged("its index has a NumPy scalar that is not a 0-d array")
            return arr[()]
        if kind == "dtype":
            dt = _DTYPES.get(_field(node, "value", str, "dtype node"))
            if dt is None:
                raise _Damaged(f"its index names an unknown dtype {node['value']!r}")
            return dt
        if kind == "device":
            try:
                return _device_cls(_field(node, "value", str, "device node"))
            except (RuntimeError, ValueError, TypeError):
                raise _Damaged(f"its index names an invalid device {node['value']!r}") from None
        raise _Damaged(f"its index has a node of unknown type {kind!r}")

    def _container(self, node, kind):
        if kind in ("list", "tuple", "size"):
            items = [self.decode(v) for v in _field(node, "items", list, f"{kind} node")]
            if kind == "size":
                if not all(type(v) is int for v in items):
                    raise _Damaged("its index has a Size with non-integer entries")
                return Size(items)
            return tuple(items) if kind == "tuple" else items
        out = {"dict": dict, "ordereddict": OrderedDict, "counter": Counter}[kind]()
        for pair in _field(node, "items", list, f"{kind} node"):
            if not isinstance(pair, list) or len(pair) != 2:
                raise _Damaged(f"its index has a {kind} item that is not a [key, value] pair")
            key = self.decode(pair[0])
            if not isinstance(key, _KEY_TYPES) or isinstance(key, tuple) and not _hashable(key):
                raise _Damaged(f"its index has a {kind} key of type {type(key).__name__}")
            out[key] = self.decode(pair[1])
        attrs = node.get("attrs", [])
        if not isinstance(attrs, list) or attrs and kind == "dict":
            raise _Damaged(f"its index has a {kind} node with invalid 'attrs'")
        for pair in attrs:
            if not (isinstance(pair, list) and len(pair) == 2 and _attr_name_ok(pair[0])):
                raise _Damaged(f"its index has a {kind} attribute that is not a [name, value] pair")
            setattr(out, pair[0], self.decode(pair[1]))
        return out

    def _tensor(self, spec):
        host = self.hosts[spec["array"]]
        if not host.dtype.isnative:
            host = host.astype(host.dtype.newbyteorder("="))
        saved = spec["device"]
        t = None
        if callable(self.map_location) and not isinstance(self.map_location, (dict, str, _device_cls)):
            t = self.map_location(_make(host, CPU), saved)
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"minigrad.load: map_location returned {type(t).__name__}, expected a Tensor or None")
        if t is None:
            dev = _target_device(saved, self.map_location)
            t = _make(host if dev is CPU else dev.backend.asarray(host), dev)
        if spec["parameter"]:
            return _parameter_class()(t.detach(), requires_grad=spec["requires_grad"])
        t = t.detach()
        if spec["requires_grad"]:
            t.requires_grad_(True)
        return t


def _attr_name_ok(name):
    """An attribute name save writes and load sets: an identifier, not a dunder (__class__)."""
    return isinstance(name, str) and name.isidentifier() and not name.startswith("__")


def _hashable(key):
    try:
        hash(key)
        return True
    except TypeError:
        return False


def _target_device(saved, map_location):
    loc = saved
    if isinstance(map_location, dict):
        loc = map_location.get(saved, saved)
    elif map_location is not None and not callable(map_location):
        loc = map_location
    target = _device_cls(loc) if not isinstance(loc, _device_cls) else loc
    if target.type == "cuda":
        from . import cuda
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but "
                               "minigrad.cuda.is_available() is False. If you are running on a CPU-only "
                               "machine, please use minigrad.load with map_location=minigrad.device('cpu') "
                               "to map your storages to the CPU.")
        if target.index is not None and target.index >= cuda.device_count():
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {target.index} but "
                               f"minigrad.cuda.device_count() is {cuda.device_count()}. Please use "
                               "minigrad.load with map_location to map your storages to an existing device.")
    return canonical(target)
