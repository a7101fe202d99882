"""minigrad.save / minigrad.load: round trips, devices, file objects, and files that are not ours."""
import collections
import enum
import io
import json
import math
import pickle
import warnings
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import minigrad
from minigrad.nn import Parameter


def roundtrip(obj, **load_kw):
    buf = io.BytesIO()
    minigrad.save(obj, buf)
    buf.seek(0)
    return minigrad.load(buf, **load_kw)


def assert_same(a, b):
    """Equal values and exactly the same types, all the way down."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, minigrad.Tensor):
        assert (a.dtype, a.shape, a.device, a.requires_grad) == (b.dtype, b.shape, b.device, b.requires_grad)
        assert a.grad_fn is None and b.is_leaf
        np.testing.assert_array_equal(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, dict):
        assert list(a.keys()) == list(b.keys())
        for k in a:
            assert type(k) is type(next(kk for kk in b if kk == k))
            assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


def _tensors(device):
    return [
        minigrad.randn(3, 4, device=device),
        minigrad.randn(2, dtype=minigrad.float64, device=device, requires_grad=True),
        minigrad.tensor(2.5, device=device),
        minigrad.arange(6, device=device).reshape(2, 3),
        minigrad.tensor([1, -2], dtype=minigrad.int32, device=device),
        minigrad.tensor([True, False, True], device=device),
        minigrad.zeros(0, 3, device=device),
        minigrad.randn(4, 3, device=device).t(),  # not contiguous
    ]


def test_tensor_round_trip(device):
    for t in _tensors(device):
        back = roundtrip(t)
        expected = t.detach()
        expected.requires_grad_(t.requires_grad)
        assert_same(expected, back)


def test_checkpoint_structures_round_trip():
    w = minigrad.randn(2, 3)
    obj = {
        "model": OrderedDict([("fc.weight", w), ("fc.bias", minigrad.zeros(2)), ("bn.num_batches_tracked",
                                                                                 minigrad.tensor(7))]),
        "optimizer": {"state": {0: {"step": minigrad.tensor(3.0), "exp_avg": minigrad.ones(2, 3)}, 1: {}},
                      "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "foreach": None,
                                        "amsgrad": False, "params": [0, 1]}]},
        "epoch": 12, "big": 2 ** 70, "neg": -3, "loss": 0.1 + 0.2, "inf": float("-inf"), "nan": float("nan"),
        "name": "résumé ✓", "raw": b"\x00\xffbytes", "nothing": None, "flags": [True, False],
        "nested": [(1, [2, (3,)]), {}, [], ()],
        (1, "tuple key"): "v", 2.5: "float key", None: "none key", True: "bool key",
        "shape": minigrad.Size([2, 3]), "dtype": minigrad.float64, "device": minigrad.device("cpu"),
        "np": np.arange(6, dtype=np.uint8).reshape(2, 3), "np_scalar": np.float32(1.5),
    }
    back = roundtrip(obj)
    assert_same(obj, back)
    assert type(back["model"]) is OrderedDict and list(back["model"]) == ["fc.weight", "fc.bias",
                                                                          "bn.num_batches_tracked"]
    assert list(back["optimizer"]["state"]) == [0, 1] and type(back["nested"][0]) is tuple
    assert type(back["np_scalar"]) is np.float32 and type(back["shape"]) is minigrad.Size


def test_parameters_and_requires_grad():
    p = Parameter(minigrad.randn(3))
    frozen = Parameter(minigrad.randn(2), requires_grad=False)
    x = minigrad.ones(2, requires_grad=True)
    y = x * 2  # not a leaf: saved without its history
    back = roundtrip({"p": p, "frozen": frozen, "y": y, "x": x})
    assert type(back["p"]) is Parameter and back["p"].requires_grad
    assert type(back["frozen"]) is Parameter and not back["frozen"].requires_grad
    assert type(back["y"]) is minigrad.Tensor and back["y"].is_leaf and back["y"].grad_fn is None
    assert back["y"].tolist() == [2.0, 2.0] and back["x"].requires_grad and back["x"].is_leaf


def test_non_leaf_requires_grad_as_torch():
    torch = pytest.importorskip("torch")
    tx = torch.ones(2, requires_grad=True)
    buf = io.BytesIO()
    torch.save(tx * 2, buf)
    buf.seek(0)
    ty = torch.load(buf)
    y = roundtrip(minigrad.ones(2, requires_grad=True) * 2)
    assert (y.requires_grad, y.is_leaf) == (ty.requires_grad, ty.is_leaf)


def test_shared_tensor_stays_shared():
    t, u = minigrad.randn(3), minigrad.randn(3)
    back = roundtrip({"a": t, "b": [t, u], "c": u.clone()})
    assert back["a"] is back["b"][0] and back["b"][1] is not back["c"]
    back["a"].add_(1)
    assert back["b"][0].tolist() == back["a"].tolist()


def test_shared_containers_stay_shared():
    # as pickle's memo does in torch.save: a container saved in two places loads as one object
    inner, d, t = [0], {"k": 1}, (1, [2])
    obj = {"twice": [inner, inner], "d": d, "more": [d, {"again": d}], "t": [t, t], "copy": [0]}
    back = roundtrip(obj)
    assert_same(obj, back)
    assert back["twice"][0] is back["twice"][1] and back["twice"][0] is not back["copy"]
    assert back["d"] is back["more"][0] is back["more"][1]["again"]
    assert back["t"][0] is back["t"][1]
    back["twice"][0].append(5)
    assert back["twice"] == [[0, 5], [0, 5]]
    lst = [1]
    again = roundtrip([lst, lst])
    assert again[0] is again[1] and again == [[1], [1]]


def test_counter_round_trip_for_multistep_lr():
    optim = pytest.importorskip("minigrad.optim")
    opt = optim.SGD([minigrad.zeros(1, requires_grad=True)], lr=0.1)
    sched = optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 2, 4])
    back = roundtrip(sched.state_dict())
    assert type(back["milestones"]) is collections.Counter and back["milestones"] == sched.milestones
    assert_same(roundtrip(collections.Counter("abca")), collections.Counter("abca"))


_Point = collections.namedtuple("_Point", "x y")


class _Color(enum.IntEnum):
    RED = 1


class _Name(str):
    pass


@pytest.mark.parametrize("obj,name,base", [
    (_Point(1, 2), "_Point", "tuple"),
    (_Color.RED, "_Color", "int"),
    (collections.defaultdict(list, a=[1]), "defaultdict", "dict"),
    (_Name("x"), "_Name", "str"),
    (type("MyList", (list,), {})([1]), "MyList", "list"),
    (type("MyFloat", (float,), {})(1.5), "MyFloat", "float"),
    (type("MyOD", (OrderedDict,), {})(a=1), "MyOD", "OrderedDict"),
])
def test_subclasses_of_saveable_types_are_refused(tmp_path, obj, name, base):
    # saved as their base type they would load back as something else
    path = tmp_path / "x.pt"
    with pytest.raises(TypeError, match=rf"minigrad.save: cannot save an object of type {name} \(at the root\), "
                                        rf"a subclass of {base}: it would load as a plain {base}"):
        minigrad.save(obj, path)
    with pytest.raises(TypeError, match=rf"cannot save an object of type {name} \(at the root\['k'\]\[0\]\)"):
        minigrad.save({"k": [obj]}, path)
    assert not path.exists()
    with pytest.raises(TypeError, match="cannot save a dict key of type _Color"):
        minigrad.save({_Color.RED: 1}, path)


@pytest.mark.parametrize("make, name", [
    (lambda: np.ma.array([1., 2.], mask=[False, True]), "MaskedArray"),
    (lambda: np.ma.masked, "MaskedConstant"),
    (lambda: np.matrix([[1, 2]]), "matrix"),
], ids=["MaskedArray", "MaskedConstant", "matrix"])
@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_numpy_array_subclasses_are_refused(tmp_path, make, name):
    # torch.save pickles them; saved as a plain array they would load without what the subclass
    # adds (a masked array's mask), so minigrad refuses them as it refuses a namedtuple
    path = tmp_path / "x.pt"
    with pytest.raises(TypeError, match=rf"minigrad.save: cannot save an object of type {name} \(at the root\), "
                                        r"a subclass of ndarray: it would load as a plain ndarray"):
        minigrad.save(make(), path)
    with pytest.raises(TypeError, match=rf"cannot save an object of type {name} \(at the root\['k'\]\[0\]\)"):
        minigrad.save({"k": [make()]}, path)
    assert not path.exists()
    minigrad.save({"k": [np.asarray(make())]}, path)  # as a plain array it is saved
    assert type(minigrad.load(path)["k"][0]) is np.ndarray


def test_loaded_data_is_a_copy_and_writable():
    t = minigrad.zeros(3)
    buf = io.BytesIO()
    minigrad.save(t, buf)
    t.add_(5)
    buf.seek(0)
    back = minigrad.load(buf)
    assert back.tolist() == [0.0, 0.0, 0.0]
    back.mul_(2).add_(1)
    assert back.tolist() == [1.0, 1.0, 1.0]


def test_model_and_optimizer_checkpoint(tmp_path):
    nn, optim = minigrad.nn, pytest.importorskip("minigrad.optim")
    minigrad.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = optim.Adam(model.parameters(), lr=0.1)
    (model.weight.sum() + (model.bias ** 2).sum()).backward()
    opt.step()
    path = tmp_path / "ckpt.pt"
    minigrad.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)
    ckpt = minigrad.load(path, weights_only=True)
    model2 = nn.Linear(3, 2)
    opt2 = optim.Adam(model2.parameters(), lr=0.1)
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optimizer"])
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        (m.weight.sum() + (m.bias ** 2).sum()).backward()
        o.step()
    assert model2.weight.tolist() == model.weight.tolist() and model2.bias.tolist() == model.bias.tolist()
    assert_same(opt.state_dict()["param_groups"], opt2.state_dict()["param_groups"])


# ---- files and file objects -----------------------------------------------------------------------

def test_missing_parent_directory_as_torch(tmp_path):
    torch = pytest.importorskip("torch")
    for rel in ("nodir/x.pt", "nodir/sub/x.pt"):
        for path in (str(tmp_path / rel), tmp_path / rel):
            with pytest.raises(RuntimeError) as want:
                torch.save(1, path)
            with pytest.raises(RuntimeError) as got:
                minigrad.save({1, 2}, path)  # checked first, before the object (as torch does)
            parent = tmp_path / rel.rpartition("/")[0]
            assert str(got.value) == str(want.value) == f"Parent directory {parent} does not exist."
    (tmp_path / "a_file").write_bytes(b"")
    with pytest.raises(RuntimeError, match="Parent directory .*a_file does not exist."):
        minigrad.save(1, tmp_path / "a_file" / "x.pt")


def test_paths_and_file_objects(tmp_path):
    obj = {"w": minigrad.randn(2, 2), "n": 3}
    minigrad.save(obj, str(tmp_path / "a.pt"))  # a str path is used as is: no extension added
    assert (tmp_path / "a.pt").exists() and not (tmp_path / "a.pt.npz").exists()
    assert_same(obj, minigrad.load(str(tmp_path / "a.pt")))
    with open(tmp_path / "b.pt", "wb") as fh:
        minigrad.save(obj, fh)
    with open(tmp_path / "b.pt", "rb") as fh:
        assert_same(obj, minigrad.load(fh))
    assert (tmp_path / "a.pt").read_bytes() == (tmp_path / "b.pt").read_bytes()


class _Stream(io.RawIOBase):
    """A pipe-like file object: no seek, no tell."""

    def __init__(self, data=b""):
        self.data, self.pos, self.out = data, 0, bytearray()

    def readable(self):
        return True

    def writable(self):
        return True

    def readinto(self, b):
        n = min(len(b), len(self.data) - self.pos)
        b[:n] = self.data[self.pos:self.pos + n]
        self.pos += n
        return n

    def write(self, b):
        self.out += bytes(b)
        return len(b)


def test_unseekable_streams():
    obj = [minigrad.randn(5), {"k": (1, 2)}]
    sink = _Stream()
    minigrad.save(obj, sink)
    assert_same(obj, minigrad.load(_Stream(bytes(sink.out))))


# ---- devices and map_location ---------------------------------------------------------------------

def test_device_round_trip_and_map_location(device):
    t = minigrad.randn(3, device=device)
    loc = str(t.device)
    assert roundtrip(t).device == t.device
    for where in ("cpu", minigrad.device("cpu"), {loc: "cpu"}, lambda storage, saved: storage):
        back = roundtrip(t, map_location=where)
        assert back.device == minigrad.device("cpu") and back.tolist() == t.tolist()
    assert roundtrip(t.cpu(), map_location=device).device == t.device
    assert roundtrip(t.cpu(), map_location={"cuda:0": "cpu"}).device == minigrad.device("cpu")


def _rewrite_index(data, change):
    """A copy of a saved file whose JSON index went through change(index)."""
    src, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            body = src.read(name)
            if name.endswith(".json"):
                index = json.loads(body)
                change(index)
                body = json.dumps(index).encode()
            dst.writestr(name, body)
    out.seek(0)
    return out


def _saved(obj):
    buf = io.BytesIO()
    minigrad.save(obj, buf)
    return buf.getvalue()


def test_cuda_file_on_a_machine_without_cuda():
    if minigrad.cuda.is_available():
        pytest.skip("needs a machine without CUDA")
    # a file as a GPU machine writes it: the same bytes with the device recorded as cuda:0
    data = _saved({"w": minigrad.arange(3.0)})

    def on_gpu(index):
        index["tensors"][0]["device"] = "cuda:0"
    with pytest.raises(RuntimeError, match=r"Attempting to deserialize object on a CUDA device but "
                                           r"minigrad.cuda.is_available\(\) is False"):
        minigrad.load(_rewrite_index(data, on_gpu))
    for where in ("cpu", {"cuda:0": "cpu"}, minigrad.device("cpu")):
        back = minigrad.load(_rewrite_index(data, on_gpu), map_location=where)
        assert back["w"].device == minigrad.device("cpu") and back["w"].tolist() == [0.0, 1.0, 2.0]


# ---- files that are not ours ----------------------------------------------------------------------

def _load_error(data, match):
    with pytest.raises(RuntimeError, match=match) as e:
        minigrad.load(io.BytesIO(data) if isinstance(data, bytes) else data)
    assert "is not a file written by minigrad.save" in str(e.value)


def test_truncated_files(tmp_path):
    data = _saved({"w": minigrad.randn(50), "b": [1, 2]})
    for cut in (0, 3, 40, len(data) // 2, len(data) - 22, len(data) - 1):
        path = tmp_path / "cut.pt"
        path.write_bytes(data[:cut])
        with pytest.raises(RuntimeError, match=f"minigrad.load: {path} is not a file written by minigrad.save"):
            minigrad.load(path)


def test_foreign_files(tmp_path):
    _load_error(bytes(np.random.default_rng(0).integers(0, 256, 500, dtype=np.uint8)), "not a zip archive")
    _load_error(b"", "empty")
    _load_error(pickle.dumps({"a": 1}), "not a zip archive")
    npz = io.BytesIO()
    np.savez(npz, a=np.zeros(3))
    _load_error(npz.getvalue(), "without the index")
    npy = io.BytesIO()
    np.save(npy, np.zeros(3))
    _load_error(npy.getvalue(), "single NumPy .npy array")


def test_torch_checkpoint_is_named():
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, buf)
    _load_error(buf.getvalue(), "PyTorch checkpoint")


@pytest.mark.parametrize("change,match", [
    (lambda ix: ix.update(format="other"), "does not name the minigrad.save format"),
    (lambda ix: ix.update(version=99), "format version 99"),
    (lambda ix: ix["tensors"][0].update(array="a9"), "does not hold"),
    (lambda ix: ix["tensors"][0].update(dtype="int64"), "the index says int64"),
    (lambda ix: ix["root"]["items"][0][1].update(id=5), "refers to tensor 5"),
    (lambda ix: ix["root"]["items"][0][1].update(type="pickle"), "unknown type 'pickle'"),
    (lambda ix: ix["root"].update(items="x"), "without a valid 'items'"),
    (lambda ix: ix["root"]["items"].append([{"type": "str", "value": "f"}, {"type": "float", "value": 10 ** 400}]),
     "float node without a valid value"),
    (lambda ix: ix["root"]["items"].append([{"type": "str", "value": "s"}, {"type": "shared", "id": 0}]),
     "refers to shared container 0 before it is defined"),
    (lambda ix: ix["tensors"][0].update(device="gpu:x"), "invalid device 'gpu:x'"),
])
def test_damaged_index(change, match):
    _load_error(_rewrite_index(_saved({"w": minigrad.randn(2)}), change), match)


def test_damaged_npy_header_is_named():
    buf = io.BytesIO()
    minigrad.save(minigrad.zeros(100, 10), buf)
    data = bytearray(buf.getvalue())
    data[data.index(b"{'descr'")] = ord("z")  # NumPy's header parser then raises tokenize.TokenError
    _load_error(bytes(data), "the array entry 'a0' cannot be read")


def _load_or_damaged(data, expected):
    """Load damaged bytes: the saved object, unchanged, or load's RuntimeError; nothing else."""
    try:
        back = minigrad.load(io.BytesIO(data))
    except RuntimeError as e:
        assert "minigrad.load: the file object BytesIO is not a file written by minigrad.save (" in str(e)
        return "error"
    assert_same(expected, back)
    return "loaded"


def test_every_flipped_byte_loads_the_same_or_says_damaged():
    obj = {"w": minigrad.arange(6.0).reshape(2, 3), "n": [1, 2.5, "s"],
           "i": minigrad.tensor([1, 2], dtype=minigrad.int32)}
    data = _saved(obj)
    outcomes = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy warns about some damaged .npy headers
        for pos in range(len(data)):
            for flip in (0x01, 0xFF):
                damaged = bytearray(data)
                damaged[pos] ^= flip
                outcomes.add(_load_or_damaged(bytes(damaged), obj))
        # entries larger than zipfile's read-ahead: NumPy parses the header before the CRC is checked
        big = {"w": minigrad.zeros(100, 10), "v": minigrad.arange(1100)}
        data = _saved(big)
        headers = [i for i in range(len(data)) if data.startswith(b"\x93NUMPY", i)]
        assert len(headers) == 2
        for start in headers:
            for pos in range(start, start + 128):
                for flip in (0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x55):
                    damaged = bytearray(data)
                    damaged[pos] ^= flip
                    outcomes.add(_load_or_damaged(bytes(damaged), big))
    assert outcomes == {"loaded", "error"}


def test_unsupported_objects_fail_before_writing(tmp_path):
    path = tmp_path / "x.pt"
    with pytest.raises(TypeError, match=r"cannot save an object of type set \(at the root\['a'\]\[1\]\)"):
        minigrad.save({"a": [1, {2, 3}]}, path)
    with pytest.raises(TypeError, match="dict key of type frozenset"):
        minigrad.save({frozenset(): 1}, path)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="reference cycle"):
        minigrad.save(loop, path)
    assert not path.exists()


class _Payload:
    """Unpickling this runs code: it touches the file at `path`."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').close()",))


@pytest.mark.parametrize("as_kind", ["tensor", "ndarray"])
def test_pickled_object_array_is_never_unpickled(tmp_path, as_kind):
    marker = tmp_path / "pwned"
    evil = np.empty(1, dtype=object)
    evil[0] = _Payload(marker)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        with zf.open("a0.npy", "w") as fh:
            np.lib.format.write_array(fh, evil, allow_pickle=True)
        tensors = [{"array": "a0", "dtype": "float32", "shape": [1], "device": "cpu",
                    "requires_grad": False, "parameter": False}] if as_kind == "tensor" else []
        root = {"type": "tensor", "id": 0} if as_kind == "tensor" else {"type": "ndarray", "array": "a0"}
        zf.writestr("minigrad_index.json", json.dumps({"format": "minigrad.save", "version": 1,
                                                       "tensors": tensors, "root": root}))
    data = buf.getvalue()
    with pytest.raises(RuntimeError, match="pickled Python objects, which minigrad.load never unpickles"):
        minigrad.load(io.BytesIO(data))
    assert not marker.exists()
    # the payload is live: NumPy with pickling allowed runs it
    np.load(io.BytesIO(data), allow_pickle=True)["a0"]
    assert marker.exists()
