"""F.scaled_dot_product_attention, F.multi_head_attention_forward, nn.MultiheadAttention and the
Transformer modules against PyTorch: torch's weights copied in (state_dict through NumPy), then
outputs, attention weights and every parameter and input gradient compared, on each device."""
import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
TF = torch.nn.functional
MF = mg.nn.functional

TOL = {"float64": dict(rtol=1e-10, atol=1e-10), "float32": dict(rtol=1e-5, atol=2e-5)}


def _dt(lib, name):
    return getattr(lib, name)


def _pair(a, device, grad=True):
    """The same array as a torch tensor and as a minigrad tensor on device (float ones require grad)."""
    f = a.dtype.kind == "f" and grad
    return torch.tensor(a, requires_grad=f), mg.tensor(a, device=device, requires_grad=f)


def _np(t):
    return t.detach().cpu().numpy() if hasattr(t, "cpu") else t.detach().numpy()


def _close(t, m, dtype, what=""):
    if t is None or m is None:
        assert t is None and m is None, what
        return
    assert tuple(t.shape) == tuple(m.shape), what
    np.testing.assert_allclose(_np(m), _np(t), err_msg=what, equal_nan=True, **TOL[dtype])


def _copy_weights(tmod, mmod, device):
    sd = {k: mg.tensor(v.detach().numpy()) for k, v in tmod.state_dict().items()}
    assert list(sd) == list(mmod.state_dict())
    mmod.load_state_dict(sd)
    return mmod.to(device)


def _compare(tmod, mmod, call, arrays, device, dtype, masks=()):
    """Runs call(mod, lib, *tensors) on both modules, compares the outputs, then backpropagates the
    same random cotangents and compares all parameter and input gradients."""
    pairs = [_pair(a, device) for a in arrays]
    mpairs = [_pair(a, device, grad=False) for a in masks]
    tout = call(tmod, torch, *[p[0] for p in pairs], *[p[0] for p in mpairs])
    mout = call(mmod, mg, *[p[1] for p in pairs], *[p[1] for p in mpairs])
    tout = tout if isinstance(tout, tuple) else (tout,)
    mout = mout if isinstance(mout, tuple) else (mout,)
    rng = np.random.default_rng(7)
    tloss = mloss = 0
    for i, (t, m) in enumerate(zip(tout, mout)):
        _close(t, m, dtype, f"output {i}")
        if t is not None and t.requires_grad:
            g = rng.standard_normal(tuple(t.shape)).astype(arrays[0].dtype)
            g[~np.isfinite(_np(t))] = 0
            tloss = tloss + (torch.nan_to_num(t, 0.0) * torch.tensor(g)).sum()
            mloss = mloss + (m * mg.tensor(g, device=device)).sum() if np.isfinite(_np(t)).all() else mloss
    if not isinstance(tloss, int):
        tloss.backward()
        mloss.backward()
        tparams = dict(tmod.named_parameters()) if tmod is not None else {}
        for name, mp in (mmod.named_parameters() if mmod is not None else []):
            _close(tparams[name].grad, mp.grad, dtype, f"grad of {name}")
        for i, (t, m) in enumerate(pairs):
            _close(t.grad, m.grad, dtype, f"grad of input {i}")
    return tout, mout


def _build(name, *args, dtype="float64", device="cpu", **kwargs):
    tmod = getattr(torch.nn, name)(*args, dtype=getattr(torch, dtype), **kwargs)
    mmod = getattr(mg.nn, name)(*args, dtype=getattr(mg, dtype), **kwargs)
    return tmod, _copy_weights(tmod, mmod, device)


def _rand(rng, *shape, dtype="float64"):
    return rng.standard_normal(shape).astype(dtype)


def _bool_mask(rng, *shape):
    m = rng.random(shape) < 0.4
    m[..., 0] = False  # every row keeps a key: no all -inf row (NaN in torch's need_weights path)
    return m


# ---- scaled_dot_product_attention ------------------------------------------------------------------

SDPA_CASES = [
    dict(q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7)),
    dict(q=(4, 5), k=(6, 5), v=(6, 3)),
    dict(q=(3, 4, 5), k=(3, 6, 5), v=(3, 6, 5), is_causal=True),
    dict(q=(2, 6, 4), k=(2, 3, 4), v=(2, 3, 4), is_causal=True),  # L > S: top-left aligned
    dict(q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7), scale=0.37),
    dict(q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7), scale=-0.5),
    dict(q=(1, 3, 4, 5), k=(2, 1, 6, 5), v=(2, 1, 6, 7)),  # broadcast batch dims
    dict(q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7), mask="bool", mshape=(4, 6)),
    dict(q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7), mask="bool", mshape=(2, 1, 4, 6)),
    dict(q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7), mask="float", mshape=(3, 4, 6)),
    dict(q=(2, 3, 4, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7), mask="dead", mshape=(4, 6)),  # an all-False row: zeros
    dict(q=(2, 6, 4, 5), k=(2, 2, 3, 5), v=(2, 3, 3, 7), enable_gqa=True),
    dict(q=(2, 3, 0, 5), k=(2, 3, 6, 5), v=(2, 3, 6, 7)),
    dict(q=(2, 3, 4, 5), k=(2, 3, 0, 5), v=(2, 3, 0, 7)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(SDPA_CASES)))
def test_sdpa_matches_torch(case, dtype, device):
    c = dict(SDPA_CASES[case])
    rng = np.random.default_rng(case)
    arrays = [_rand(rng, *c.pop(n), dtype=dtype) for n in "qkv"]
    masks = []
    kind, mshape = c.pop("mask", None), c.pop("mshape", None)
    if kind == "bool":
        masks = [~_bool_mask(rng, *mshape)]
    elif kind == "dead":
        m = ~_bool_mask(rng, *mshape)
        m[1] = False
        masks = [m]
    elif kind == "float":
        masks = [_rand(rng, *mshape, dtype=dtype)]

    def call(_, lib, q, k, v, *mask):
        F = TF if lib is torch else MF
        return F.scaled_dot_product_attention(q, k, v, *mask, **c)
    _compare(None, None, call, arrays, device, dtype, masks)


def test_sdpa_float32_mask_with_float64_query(device):
    rng = np.random.default_rng(0)
    arrays = [_rand(rng, 2, 4, 3), _rand(rng, 2, 5, 3), _rand(rng, 2, 5, 3)]
    mask = _rand(rng, 4, 5, dtype="float32")
    _compare(None, None, lambda _, lib, q, k, v, m: (TF if lib is torch else MF).scaled_dot_product_attention(
        q, k, v, m), arrays, device, "float64", [mask])


def test_sdpa_dropout(device):
    q = mg.randn(2, 4, 8, 3, device=device)
    out = MF.scaled_dot_product_attention(q, q, q, dropout_p=1.0)
    assert out.shape == (2, 4, 8, 3) and not _np(out).any()  # everything dropped, as torch's
    mg.manual_seed(0)
    a = MF.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    mg.manual_seed(0)
    b = MF.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert np.array_equal(_np(a), _np(b))
    assert not np.allclose(_np(a), _np(MF.scaled_dot_product_attention(q, q, q)))


def _errors(fn, *cases):
    for args in cases:
        results = []
        for lib in (torch, mg):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn(lib, *args)
                results.append(None)
            except Exception as e:  # noqa: BLE001 - the point is to compare them
                results.append((type(e).__name__, str(e).replace("minigrad", "torch")))
        assert results[0] == results[1], args
        assert results[0] is not None, args


def test_sdpa_errors():
    def f(lib, qs, ks, vs, dt=None, kdt=None, mask=None, **kw):
        F = TF if lib is torch else MF
        t = lambda s, d: lib.zeros(s, dtype=getattr(lib, d or "float32"))  # noqa: E731
        m = None if mask is None else lib.zeros(mask[0], dtype=getattr(lib, mask[1]))
        return F.scaled_dot_product_attention(t(qs, dt), t(ks, kdt or dt), t(vs, dt), m, **kw)
    q, k = (2, 4, 3), (2, 5, 3)
    for args, kw in [
        ((q, k, k), dict(mask=((4, 5), "bool"), is_causal=True)),
        ((q, k, k, "float32", "float64"), {}),
        (((3,), (3,), (3,)), {}),
        ((q, (2, 5, 2), k), {}),
        ((q, k, (2, 4, 3)), {}),
        ((q, k, k), dict(mask=((4, 5), "int64"))),
        ((q, k, k), dict(mask=((4, 5), "float64"))),
        ((q, k, k), dict(mask=((3, 5), "float32"))),
        ((q, k, k), dict(mask=((3, 2, 4, 5), "float32"))),
        ((q, k, k, "int64"), {}),
        ((q, k, k), dict(dropout_p=1.5)),
        ((q, k, k), dict(dropout_p="a")),
        ((q, k, k), dict(is_causal=1)),
        ((q, k, k), dict(enable_gqa=1)),
        ((q, k, k), dict(scale="x")),
        (((2, 3, 4, 3), (2, 2, 5, 3), (2, 2, 5, 3)), dict(enable_gqa=True)),
        (((4, 3), (5, 3), (5, 3)), dict(enable_gqa=True)),
    ]:
        _errors(lambda lib, *a: f(lib, *a, **kw), args)
    _errors(lambda lib: (TF if lib is torch else MF).scaled_dot_product_attention(3, lib.zeros(2, 2),
                                                                                  lib.zeros(2, 2)), ())


# ---- MultiheadAttention ----------------------------------------------------------------------------

MHA_CASES = [
    # (constructor kwargs, L, S, batch (None: unbatched), forward kwargs, masks, self-attention)
    (dict(), 4, 5, 2, dict(), {}, False),
    (dict(batch_first=True), 4, 4, 3, dict(), {}, True),
    (dict(batch_first=True), 4, 4, 3, dict(need_weights=False), {}, True),
    (dict(), 4, 5, None, dict(), {}, False),
    (dict(), 4, 5, None, dict(average_attn_weights=False), {"key_padding_mask": "bool"}, False),
    (dict(kdim=3, vdim=5), 4, 5, 2, dict(), {}, False),
    (dict(kdim=3, vdim=5, batch_first=True), 4, 5, 2, dict(need_weights=False), {"attn_mask": "bool2"}, False),
    (dict(add_bias_kv=True), 4, 5, 2, dict(), {"attn_mask": "float2", "key_padding_mask": "float"}, False),
    (dict(add_zero_attn=True), 4, 5, 2, dict(), {"attn_mask": "bool3", "key_padding_mask": "bool"}, False),
    (dict(add_bias_kv=True, add_zero_attn=True), 4, 5, 2, dict(need_weights=False),
     {"attn_mask": "float3", "key_padding_mask": "float"}, False),
    (dict(bias=False), 4, 5, 2, dict(average_attn_weights=False), {"attn_mask": "float3"}, False),
    (dict(), 4, 4, 2, dict(need_weights=False, is_causal=True), {"attn_mask": "causal"}, True),
    (dict(), 4, 4, 2, dict(need_weights=True, is_causal=True), {"attn_mask": "causal"}, True),
    (dict(batch_first=True), 4, 4, 2, dict(need_weights=False, is_causal=True),
     {"attn_mask": "causal", "key_padding_mask": "bool"}, True),
    (dict(), 4, 5, None, dict(need_weights=False), {"attn_mask": "bool3", "key_padding_mask": "bool"}, False),
    (dict(dropout=0.5), 4, 5, 2, dict(), {"key_padding_mask": "bool"}, False),  # eval: no dropout
]


def _mask(rng, kind, L, S, N, H, dtype):
    if kind == "causal":
        return np.triu(np.full((L, S), -np.inf), 1).astype(dtype)
    if kind == "bool":
        return _bool_mask(rng, *((N, S) if N else (S,)))
    if kind == "float":
        return (_rand(rng, *((N, S) if N else (S,)), dtype=dtype))
    lead = (() if kind.endswith("2") else ((N or 1) * H,))
    return _bool_mask(rng, *lead, L, S) if kind.startswith("bool") else _rand(rng, *lead, L, S, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(MHA_CASES)))
def test_multihead_attention_matches_torch(case, dtype, device):
    ctor, L, S, N, fwd, mask_kinds, self_attn = MHA_CASES[case]
    E, H = 6, 2
    rng = np.random.default_rng(case)
    tmod, mmod = _build("MultiheadAttention", E, H, dtype=dtype, device=device, **ctor)
    tmod.eval()
    mmod.eval()
    bf = ctor.get("batch_first", False)

    def shape(n, e):
        return (n, e) if N is None else ((N, n, e) if bf else (n, N, e))
    arrays = [_rand(rng, *shape(L, E), dtype=dtype)]
    if not self_attn:
        arrays += [_rand(rng, *shape(S, ctor.get("kdim", E)), dtype=dtype),
                   _rand(rng, *shape(S, ctor.get("vdim", E)), dtype=dtype)]
    names = list(mask_kinds)
    masks = [_mask(rng, mask_kinds[n], L, S, N, H, dtype) for n in names]

    def call(mod, lib, *ts):
        q, k, v = (ts[0],) * 3 if self_attn else ts[:3]
        rest = ts[1:] if self_attn else ts[3:]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mod(q, k, v, **dict(zip(names, rest)), **fwd)
    tout, mout = _compare(tmod, mmod, call, arrays, device, dtype, masks)
    assert (tout[1] is None) == (not fwd.get("need_weights", True))


def test_multihead_attention_module_api():
    t = torch.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    m = mg.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    m = mg.nn.MultiheadAttention(8, 4, bias=False)
    t = torch.nn.MultiheadAttention(8, 4, bias=False)
    assert list(m.state_dict()) == list(t.state_dict()) and repr(m) == repr(t)
    assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(m.out_proj, mg.nn.Linear)
    # torch's init: xavier_uniform_ in_proj, zero biases
    m = mg.nn.MultiheadAttention(16, 4)
    bound = (6 / (16 + 48)) ** 0.5
    w = _np(m.in_proj_weight)
    assert np.abs(w).max() <= bound and np.abs(w).max() > bound / 2
    assert not _np(m.in_proj_bias).any() and not _np(m.out_proj.bias).any()
    assert m.head_dim == 4 and m._qkv_same_embed_dim and m.bias_k is None


def test_multihead_attention_errors():
    def ctor(lib, *a, **k):
        return lib.nn.MultiheadAttention(*a, **k)
    _errors(ctor, (0, 2), (6, 0), (6, 4))

    def fwd(lib, qs, ks, vs, kpm=None, am=None, **kw):
        mod = lib.nn.MultiheadAttention(6, 2)
        mk = lambda s, d="float32": None if s is None else lib.zeros(s, dtype=getattr(lib, d))  # noqa: E731
        return mod(mk(qs), mk(ks), mk(vs), key_padding_mask=mk(*kpm) if kpm else None,
                   attn_mask=mk(*am) if am else None, **kw)
    _errors(fwd,
            ((4, 2, 6), (5, 6), (5, 6)),
            ((4, 6), (5, 2, 6), (5, 2, 6)),
            ((4, 2, 6, 1), (5, 2, 6), (5, 2, 6)),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), ((2,), "bool")),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), ((2, 4), "bool")),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), ((3, 5), "bool")),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), None, ((5,), "bool")),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), None, ((4, 4), "bool")),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), None, ((3, 4, 5), "bool")),
            ((4, 6), (5, 6), (5, 6), None, ((3, 4, 5), "bool")),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), None, ((4, 5), "int64")),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), ((2, 5), "int64")),
            ((4, 2, 5), (5, 2, 5), (5, 2, 5)),
            ((4, 2, 6), (5, 2, 6), (4, 2, 6)),
            ((4, 2, 6), (5, 2, 6), (5, 2, 6), None, None, {"is_causal": True}),
            )


def test_multihead_attention_mismatched_mask_warning():
    for lib in (torch, mg):
        mod = lib.nn.MultiheadAttention(4, 2)
        x = lib.zeros(3, 2, 4)
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
            mod(x, x, x, key_padding_mask=lib.zeros(2, 3, dtype=lib.bool), attn_mask=lib.zeros(3, 3))


def test_multi_head_attention_forward_functional(device):
    rng = np.random.default_rng(3)
    E, H, L, S, N = 4, 2, 3, 5, 2
    arrays = [_rand(rng, L, N, E), _rand(rng, S, N, E), _rand(rng, S, N, E), _rand(rng, 3 * E, E),
              _rand(rng, 3 * E), _rand(rng, E, E), _rand(rng, E)]

    def call(_, lib, q, k, v, w, b, ow, ob):
        F = TF if lib is torch else MF
        return F.multi_head_attention_forward(q, k, v, E, H, w, b, None, None, False, 0.0, ow, ob,
                                              average_attn_weights=False)
    _compare(None, None, call, arrays, device, "float64")


# ---- Transformer layers ----------------------------------------------------------------------------

ENC_CASES = [
    (dict(), dict(), {}),
    (dict(norm_first=True, activation="gelu"), dict(), {"src_key_padding_mask": "bool"}),
    (dict(batch_first=True), dict(), {"src_mask": "causal"}),
    (dict(batch_first=True, norm_first=True), dict(is_causal=True), {"src_mask": "causal"}),
    (dict(activation="gelu", bias=False), dict(), {"src_mask": "bool2", "src_key_padding_mask": "bool"}),
    (dict(batch_first=True, layer_norm_eps=1e-3), dict(), {"src_mask": "float3"}),
    (dict(), dict(unbatched=True), {"src_key_padding_mask": "bool"}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(ENC_CASES)))
def test_transformer_encoder_layer_matches_torch(case, dtype, device):
    ctor, fwd, mask_kinds = ENC_CASES[case]
    fwd = dict(fwd)
    unbatched = fwd.pop("unbatched", False)
    E, H, L, N = 6, 2, 5, 2
    rng = np.random.default_rng(case)
    tmod, mmod = _build("TransformerEncoderLayer", E, H, 10, dtype=dtype, device=device, **ctor)
    tmod.eval()
    mmod.eval()
    bf = ctor.get("batch_first", False)
    x = _rand(rng, *((L, E) if unbatched else ((N, L, E) if bf else (L, N, E))), dtype=dtype)
    names = list(mask_kinds)
    masks = [_mask(rng, mask_kinds[n], L, L, None if unbatched else N, H, dtype) for n in names]

    def call(mod, lib, x, *ms):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mod(x, **dict(zip(names, ms)), **fwd)
    _compare(tmod, mmod, call, [x], device, dtype, masks)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_matches_torch(norm_first, device):
    E, H, L, N = 4, 2, 5, 2
    rng = np.random.default_rng(11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tlayer = torch.nn.TransformerEncoderLayer(E, H, 8, dtype=torch.float64, norm_first=norm_first)
        mlayer = mg.nn.TransformerEncoderLayer(E, H, 8, dtype=mg.float64, norm_first=norm_first)
        tmod = torch.nn.TransformerEncoder(tlayer, 3, norm=torch.nn.LayerNorm(E, dtype=torch.float64))
        mmod = mg.nn.TransformerEncoder(mlayer, 3, norm=mg.nn.LayerNorm(E, dtype=mg.float64))
    mmod = _copy_weights(tmod, mmod, device)
    assert mmod.layers[0] is not mlayer and mmod.layers[0].linear1.weight is not mmod.layers[1].linear1.weight
    tmod.eval()
    mmod.eval()
    x = _rand(rng, L, N, E)
    causal = np.triu(np.full((L, L), -np.inf), 1)
    kpm = _bool_mask(rng, N, L)
    _compare(tmod, mmod, lambda mod, lib, x, m, k: mod(x, mask=m, src_key_padding_mask=k), [x], device, "float64",
             [causal, kpm])


def test_transformer_encoder_nested_fast_path_zeros_padding(device):
    """torch's inference path (no grad, batch_first, a left-aligned padding mask) returns zeros at
    the padded positions of src, before the final norm."""
    E, H, L, N = 4, 2, 5, 3
    rng = np.random.default_rng(5)
    tlayer = torch.nn.TransformerEncoderLayer(E, H, 8, dtype=torch.float64, batch_first=True)
    mlayer = mg.nn.TransformerEncoderLayer(E, H, 8, dtype=mg.float64, batch_first=True)
    tmod = torch.nn.TransformerEncoder(tlayer, 2)
    mmod = _copy_weights(tmod, mg.nn.TransformerEncoder(mlayer, 2), device)
    tmod.eval()
    mmod.eval()
    x = _rand(rng, N, L, E)
    for lens in ([5, 3, 1], [2, 5, 4]):
        kpm = np.arange(L)[None, :] >= np.array(lens)[:, None]
        with torch.no_grad(), mg.no_grad():
            t = tmod(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
            m = mmod(mg.tensor(x, device=device), src_key_padding_mask=mg.tensor(kpm, device=device))
        assert not _np(t)[kpm].any()
        _close(t, m, "float64")
    kpm[0, 0], kpm[0, 1] = True, False  # not left aligned: the regular path
    with torch.no_grad(), mg.no_grad():
        _close(tmod(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm)),
               mmod(mg.tensor(x, device=device), src_key_padding_mask=mg.tensor(kpm, device=device)), "float64")


DEC_CASES = [
    (dict(), dict(), {}),
    (dict(norm_first=True, activation="gelu", batch_first=True), dict(),
     {"tgt_mask": "causal", "memory_key_padding_mask": "bool"}),
    (dict(), dict(tgt_is_causal=True), {"tgt_mask": "causal", "tgt_key_padding_mask": "bool",
                                        "memory_mask": "float2"}),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", range(len(DEC_CASES)))
def test_transformer_decoder_layer_matches_torch(case, dtype, device):
    ctor, fwd, mask_kinds = DEC_CASES[case]
    E, H, L, S, N = 6, 3, 4, 5, 2
    rng = np.random.default_rng(case)
    tmod, mmod = _build("TransformerDecoderLayer", E, H, 10, dtype=dtype, device=device, **ctor)
    tmod.eval()
    mmod.eval()
    bf = ctor.get("batch_first", False)
    tgt = _rand(rng, *((N, L, E) if bf else (L, N, E)), dtype=dtype)
    mem = _rand(rng, *((N, S, E) if bf else (S, N, E)), dtype=dtype)
    names = list(mask_kinds)
    sizes = {"tgt_mask": (L, L), "memory_mask": (L, S), "tgt_key_padding_mask": (L, L),
             "memory_key_padding_mask": (L, S)}
    masks = [_mask(rng, mask_kinds[n], *sizes[n], N, H, dtype) for n in names]

    def call(mod, lib, tgt, mem, *ms):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return mod(tgt, mem, **dict(zip(names, ms)), **fwd)
    _compare(tmod, mmod, call, [tgt, mem], device, dtype, masks)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_matches_torch(batch_first, device):
    E, H, L, S, N = 4, 2, 3, 5, 2
    rng = np.random.default_rng(2)
    kw = dict(num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=8, batch_first=batch_first)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tmod = torch.nn.Transformer(E, H, dtype=torch.float64, **kw)
        mmod = _copy_weights(tmod, mg.nn.Transformer(E, H, dtype=mg.float64, **kw), device)
    tmod.eval()
    mmod.eval()
    src = _rand(rng, *((N, S, E) if batch_first else (S, N, E)))
    tgt = _rand(rng, *((N, L, E) if batch_first else (L, N, E)))
    tmask = np.triu(np.full((L, L), -np.inf), 1)
    _compare(tmod, mmod, lambda mod, lib, s, t, m: mod(s, t, tgt_mask=m), [src, tgt], device, "float64", [tmask])


def test_transformer_module_api():
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        t = torch.nn.Transformer(8, 2, 2, 1, 16)
        te = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                                          activation=torch.tanh), 2)
    with warnings.catch_warnings(record=True) as mw:
        warnings.simplefilter("always")
        m = mg.nn.Transformer(8, 2, 2, 1, 16)
        me = mg.nn.TransformerEncoder(mg.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                                    activation=mg.tanh), 2)
    assert [str(w.message) for w in mw] == [str(w.message) for w in tw]
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [(n, tuple(p.shape)) for n, p in me.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in te.named_parameters()]
    assert m.encoder.use_nested_tensor == t.encoder.use_nested_tensor
    assert me.layers[0].activation_relu_or_gelu == te.layers[0].activation_relu_or_gelu == 0
    for lib in (torch, mg):
        assert lib.nn.TransformerEncoderLayer(4, 2, activation=lib.nn.GELU()).activation_relu_or_gelu == 2
    for sz in (0, 1, 4):
        np.testing.assert_array_equal(_np(mg.nn.Transformer.generate_square_subsequent_mask(sz)),
                                      _np(torch.nn.Transformer.generate_square_subsequent_mask(sz)))
    assert mg.nn.Transformer.generate_square_subsequent_mask(3, dtype=mg.float64).dtype == mg.float64
    # torch re-initializes every matrix with xavier_uniform_
    w = _np(m.encoder.layers[0].linear1.weight)
    assert np.abs(w).max() <= (6 / 24) ** 0.5


def test_transformer_errors():
    def enc_layer(lib, act):
        return lib.nn.TransformerEncoderLayer(4, 2, activation=act)

    def fwd(lib, ss, ts, bf=False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mod = lib.nn.Transformer(4, 2, 1, 1, 8, batch_first=bf)
        return mod(lib.zeros(ss), lib.zeros(ts))
    _errors(enc_layer, ("tanh",))
    _errors(fwd, ((3, 2, 4), (5, 3, 4)), ((2, 3, 4), (3, 5, 4), True), ((3, 2, 4), (5, 2, 3)))


def test_transformer_training_dropout_runs(device):
    layer = mg.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.5, device=device)
    x = mg.randn(3, 2, 4, device=device, requires_grad=True)
    out = layer(x)
    out.sum().backward()
    assert out.shape == (3, 2, 4) and x.grad is not None and np.isfinite(_np(x.grad)).all()
