"""Regressions for the differences from torch that tests/test_fuzz_layouts.py found (each of
these once differed): values, dtypes, node names, requires_grad, gradients and error messages are
compared with torch's through test_fuzz_layouts.both."""
import pytest

import minigrad

torch = pytest.importorskip("torch")

from test_fuzz_layouts import both  # noqa: E402


def _nodes(L, *ts):
    return [(t.requires_grad, None if t.grad_fn is None else type(t.grad_fn).__name__) for t in ts]


# ---- 1. views made before an in-place write that makes their base require grad ---------------------

def test_sibling_views_require_grad_after_a_write_through_another_view():
    def f(L):
        base = L.zeros(2, 3)
        row, col, tr = base[1], base[:, 2], base.t()
        w = L.tensor([1., 2., 3.], requires_grad=True)
        base[0].mul_(0).add_(w * 2)
        nodes = _nodes(L, base, row, col, tr)
        (tr.sum() * 3 + col.sum() + row.sum()).backward()
        return nodes, w.grad
    r = both(f)
    assert r[:8] == [True, "CopySlices"] + [True, "AsStridedBackward0"] * 3  # (both() flattens)


def test_views_require_grad_after_the_base_itself_is_written():
    def f(L):
        base = L.zeros(4)
        head, tail = base[:2], base[2:].unsqueeze(0)
        w = L.tensor([1., 2., 3., 4.], requires_grad=True)
        base.add_(w)
        nodes = _nodes(L, head, tail)
        (head * L.tensor([5., 7.])).sum().backward()
        g1 = w.grad.clone()
        (tail.sum() * 2).backward()
        return nodes, g1, w.grad
    assert both(f)[:4] == [True, "AsStridedBackward0", True, "AsStridedBackward0"]


def test_setitem_with_a_grad_value_reaches_earlier_views():
    def f(L):
        x = L.zeros(3, 2)
        v = x[1:]
        w = L.tensor([3., 4.], requires_grad=True)
        x[0] = w
        x[2] = w * w
        r = v.sum()
        r.backward()
        return r, v.requires_grad, w.grad
    both(f)


def test_views_of_memory_that_never_gets_grad_stay_plain():
    def f(L):
        base = L.zeros(3)
        v = base[1:]
        base[0] = 2.0
        base.add_(L.ones(3))
        return _nodes(L, base, v)
    assert both(f) == [False, None, False, None]


def test_many_dead_views_do_not_pile_up():
    base = minigrad.zeros(5)
    for _ in range(1000):
        base[1:].sum()
    assert len(base._vc) < 70  # (the registry of views drops dead entries)


# ---- 2. clamp's integer bounds in the tensor's dtype ------------------------------------------------

def test_clamp_of_uint8_with_a_negative_bound_wraps_it():
    u = lambda L: L.tensor([0, 3, 200], dtype=L.uint8)  # noqa: E731
    both(lambda L: (L.clamp(u(L), -1, 2), L.clamp(u(L), None, -1), u(L).clamp_(-255, 2), L.clamp(u(L), -0.5, 2.5)))
    both(lambda L: L.clamp(u(L), 1, 300))  # torch's overflow error
    both(lambda L: L.clamp(u(L), -256))
    both(lambda L: L.clamp(L.tensor([1, 2], dtype=L.int32), 2 ** 40))
    both(lambda L: L.clamp(L.tensor([1, 2], dtype=L.int8), -100, 100))


# ---- 3. cat: empty tensors take part in the type promotion ------------------------------------------

def test_cat_promotes_over_empty_and_legacy_empty_tensors():
    both(lambda L: L.cat([L.tensor([1], dtype=L.uint8), L.zeros(0, dtype=L.float64), L.tensor([2, 3], dtype=L.uint8)]))
    both(lambda L: L.cat([L.tensor([[1]], dtype=L.uint8), L.zeros(0, dtype=L.float64)]))
    both(lambda L: L.cat([L.tensor([[1]], dtype=L.uint8), L.zeros(0, 1, dtype=L.int64)]))
    both(lambda L: L.cat([L.zeros(0, dtype=L.int32), L.ones(2, 2, dtype=L.uint8)], 1))

    def grads(L):
        a = L.ones(2, 1, requires_grad=True)
        z = L.zeros(0, requires_grad=True)
        r = L.cat([z, a, z, L.zeros(0, dtype=L.float64), a], 1)
        (r * L.arange(4.).reshape(2, 2)).sum().backward()
        return r, a.grad, z.grad
    both(grads)


# ---- 4. median of nothing ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["int64", "int32", "int16", "int8", "uint8", "float32"])
def test_median_of_an_empty_tensor(dt):
    both(lambda L: (L.median(L.zeros(0, dtype=getattr(L, dt))), L.zeros(0, 2, dtype=getattr(L, dt)).nanmedian()))


# ---- 5. ravel / flatten / reshape: when torch copies, and the node it names -------------------------

def _layout(t):
    return tuple(t.shape), t.stride(), t._is_view() if isinstance(t, torch.Tensor) else t._base is not None, \
        None if t.grad_fn is None else type(t.grad_fn).__name__


def _same_layouts(fn):
    assert [_layout(t) for t in fn(minigrad)] == [_layout(t) for t in fn(torch)]


def test_ravel_of_an_expanded_or_strided_view_copies():
    _same_layouts(lambda L: [L.ones(1).expand(3).ravel(), L.ones(3, 1).expand(3, 4).ravel(),
                             L.ones(2, 3).t().ravel(), L.ones(4, 1)[::2].ravel(), L.ones(2, 3).ravel()])


def test_reshape_and_flatten_node_names():
    def f(L):
        g = L.ones(2, 3, requires_grad=True).clone()
        e = L.ones(3, 1, requires_grad=True)
        return [g.reshape(-1), g.t().reshape(-1), g.t().reshape(3, 1, 2), g[:, ::2].reshape(-1),
                g.t().flatten(), g[0, ::2].reshape(2), e.expand(3, 4).flatten(), e[:1].expand(1, 3).reshape(3),
                g.t().ravel(), g[0].flatten()]
    _same_layouts(f)

    def grads(L):
        x = L.arange(6., requires_grad=True)
        y = x.reshape(2, 3).t().reshape(-1) * L.arange(6.)
        y.sum().backward()
        return y, x.grad
    both(grads)


# ---- 6. matmul of a vector and a matrix -----------------------------------------------------------

def test_vector_matrix_product_node():
    def f(L):
        v, m = L.ones(3, requires_grad=True), L.arange(12., requires_grad=True).reshape(3, 4)
        r = L.matmul(v, m)
        r.backward(L.arange(4.))
        return r, v.grad
    assert both(f)[0][2] == "SqueezeBackward4"
    both(lambda L: (L.ones(3, requires_grad=True) @ L.ones(3, 1), L.ones(2, 3) @ L.ones(3, requires_grad=True),
                    L.ones(3, requires_grad=True) @ L.ones(3)))


# ---- 7. error texts -------------------------------------------------------------------------------

def test_out_of_bounds_index_names_torchs_dim():
    for key in [lambda L: (1, slice(None), [7]), lambda L: (slice(None), 1, [7]), lambda L: ([0], slice(None), [7]),
                lambda L: (Ellipsis, [7]), lambda L: (slice(None), [-9]), lambda L: (None, 1, slice(None), L.tensor([7])),
                lambda L: (Ellipsis, -2, 3), lambda L: (None, 1, None, 7), lambda L: (0, None, Ellipsis, 9)]:
        both(lambda L: L.zeros(4, 3, 5)[key(L)])

    def put(L):
        x = L.zeros(4, 3, 5)
        x[1, :, [7]] = 1.0
    both(put)


def test_empty_reduction_messages():
    z = lambda L: L.zeros(2, 0)  # noqa: E731
    both(lambda L: L.amax(z(L), -1))
    both(lambda L: L.amin(z(L), (-1,)))
    both(lambda L: L.zeros(3, 0, 2).amax((0, -2)))
    both(lambda L: L.aminmax(z(L), dim=-1))
    both(lambda L: L.max(z(L), -1))
    both(lambda L: L.median(z(L), -1))


def test_inplace_broadcast_errors_name_the_written_tensor_first():
    for f in [lambda L: L.zeros(2, 3).addcmul_(L.ones(4), L.ones(3)), lambda L: L.zeros(2, 3).addcmul_(L.ones(3), L.ones(4)),
              lambda L: L.zeros(2, 3).addcdiv_(L.ones(4), L.ones(3)),
              lambda L: L.zeros(2, 3).masked_fill_(L.ones(4, dtype=L.bool), 1.0),
              lambda L: L.zeros(2, 3, requires_grad=True).clone()[0].addcmul_(L.ones(4), L.ones(3, requires_grad=True)),
              lambda L: L.zeros(2, 3).add_(L.ones(4)), lambda L: L.zeros(2, 3, dtype=L.int64)[0].sub_(L.ones(3, 3))]:
        both(f)


def test_index_add_into_an_empty_tensor():
    both(lambda L: L.zeros(0, 5).index_add_(0, L.tensor([0]), L.ones(1, 5)))
    both(lambda L: L.zeros(0).index_add_(0, L.tensor([0]), L.ones(1)))  # a vector: torch's IndexError
    both(lambda L: L.zeros(3).index_add_(0, L.tensor([-1]), L.ones(1)))
    both(lambda L: L.zeros(2, 3).index_add_(0, L.tensor([5]), L.ones(1, 3)))

    def grads(L):
        x = L.zeros(0, 5, requires_grad=True)
        y = x.clone().index_add_(0, L.tensor([0]), L.ones(1, 5))
        y.sum().backward()
        s = L.ones(1, 5, requires_grad=True)
        try:
            L.zeros(0, 5).index_add(0, L.tensor([0]), s).sum().backward()
        except RuntimeError as e:
            return y, x.grad, str(e)
    both(grads)


# ---- 8. errors that were missing ---------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["int64", "int32", "uint8", "bool"])
def test_grad_value_into_an_integer_tensor(dt):
    v = lambda L: L.tensor(2.0, requires_grad=True)  # noqa: E731
    both(lambda L: L.zeros(3, dtype=getattr(L, dt)).masked_fill(L.tensor([True, False, True]), v(L)))
    both(lambda L: L.zeros(3, dtype=getattr(L, dt)).masked_fill(L.tensor([True, False, True]), v(L).detach()))


@pytest.mark.parametrize("name", ["sum", "prod", "nansum"])
def test_reduction_into_an_integer_dtype_of_a_grad_input(name):
    for want in ("int64", "int32", "bool", "float64"):
        both(lambda L: getattr(L, name)(L.ones(3, requires_grad=True), dtype=getattr(L, want)))
        both(lambda L: getattr(L, name)(L.ones(2, 3, requires_grad=True), 1, dtype=getattr(L, want)))
    both(lambda L: getattr(L, name)(L.ones(3), dtype=L.int32))  # no grad: the dtype asked for
    with minigrad.no_grad():
        assert getattr(minigrad, name)(minigrad.ones(3, requires_grad=True), dtype=minigrad.int64).dtype is minigrad.int64


def test_mean_into_an_integer_dtype_message():
    both(lambda L: L.mean(L.ones(3), dtype=L.int64))
    both(lambda L: L.mean(L.ones(3, dtype=L.int64)))


@pytest.mark.parametrize("vdt", ["float32", "int64", "int32", "float64"])
@pytest.mark.parametrize("val", [-1, 300, 2, -255])
def test_uint8_range_check_of_a_0d_value(vdt, val):
    vv = lambda L: L.tensor(val, dtype=getattr(L, vdt))  # noqa: E731
    m = lambda L: L.tensor([True, False, True])  # noqa: E731
    both(lambda L: L.zeros(3, dtype=L.uint8).masked_fill_(m(L), vv(L)))
    both(lambda L: L.zeros(3, dtype=L.uint8).masked_fill(m(L), vv(L)))

    def put(L):
        a = L.zeros(3, dtype=L.uint8)
        a[m(L)] = vv(L)
        b = L.zeros(3, dtype=L.uint8)
        b[1] = vv(L)  # a basic index copies: no check
        return a, b
    both(put)


# ---- found by running more seeds (cases 3000-40000) ----------------------------------------------

@pytest.mark.parametrize("dt", ["uint8", "int8", "int32", "int16"])
def test_int_scalar_operands_wrap_into_the_tensor_dtype(dt):
    x = lambda L: L.tensor([0, 5, 100], dtype=getattr(L, dt))  # noqa: E731
    for s in (-3, -1, 200, 300, 2 ** 40, 70000):
        both(lambda L: (x(L) < s, s >= x(L), x(L) == s, L.le(x(L), s), x(L) // s if s % 256 else x(L),
                        x(L) + s, s - x(L), x(L) * s, L.remainder(x(L), s) if s % 256 else x(L), x(L) & s))
    both(lambda L: x(L) ** 300)  # an exponent is range-checked instead
    both(lambda L: x(L) ** 2)


def test_nansum_of_integers_is_int64():
    both(lambda L: [L.nansum(L.ones(3, dtype=getattr(L, d)), *a) for d in ("uint8", "int32", "int64", "bool")
                    for a in ((), (0,))] + [L.nansum(L.tensor([200, 100], dtype=L.uint8)),
                                            L.nansum(L.ones((), dtype=L.uint8)), L.nansum(L.ones((), dtype=L.int32), 0)])
    both(lambda L: L.nansum(L.ones(3, dtype=L.int32), dtype=L.int32))


def test_median_of_bool():
    b = lambda L, *s: L.zeros(*s, dtype=L.bool)  # noqa: E731
    both(lambda L: (L.median(b(L, 0)), L.nanmedian(b(L, 0, 2))))  # nothing to compute: no kernel, no error
    both(lambda L: L.median(b(L, 2)))
    both(lambda L: L.median(b(L, 3, 0, 3), 0))
    both(lambda L: L.nanmedian(b(L, 2, 0), 1))  # the empty dim first


def test_amax_of_nothing_over_given_dims():
    for f in [lambda L: L.zeros(0, 4).amax((0, 1)), lambda L: L.zeros(0, 4).amax(()), lambda L: L.zeros(0, 4).amin((1, 0)),
              lambda L: L.zeros(0).amax(-1), lambda L: L.zeros(0, 4).amax((1,)), lambda L: L.zeros(0, 4, dtype=L.int64).amax()]:
        both(f)


def test_mask_shape_error_names_the_tensor_after_basic_indexing():
    for key in [lambda L: (None, Ellipsis, L.tensor([True, False]), L.tensor(0)),
                lambda L: ([-1, -3], Ellipsis, None, L.tensor([True] * 5)),
                lambda L: (slice(1, 0), None, Ellipsis, L.tensor([True] * 3)),
                lambda L: (False, L.tensor([True, False])), lambda L: (True, 1, L.tensor([True, False]))]:
        both(lambda L: L.zeros(4, 5, 4, 2)[key(L)])


def test_setitem_over_the_whole_tensor_writes_into_it():
    for key in [(slice(None),), (slice(0, None, 1),), (Ellipsis,), (slice(None), slice(0, 9)), (Ellipsis, slice(0, 2))]:
        for val in (lambda L: 0.25, lambda L: L.tensor(2.), lambda L: L.tensor([1.5, 2.5], requires_grad=True)):
            def f(L, key=key, val=val):
                x = L.ones(2, 2, requires_grad=True).clone()
                x[key] = val(L)
                x.sum().backward()
                return x, x._version
            both(f)


def test_expand_errors():
    for f in [lambda L: L.zeros(1, 1, 3, dtype=L.bool).expand(3, 2), lambda L: L.zeros(2, 1, 3).expand(3, 3, 2),
              lambda L: L.zeros(2, 1, 3).expand(-1, 3, -1, 2), lambda L: L.zeros(2, 3, dtype=L.int32).expand(3),
              lambda L: L.zeros(3).expand(2, -1, 3)]:
        both(f)


def test_copy_into_a_view_of_a_leaf_checks_the_leaf_first():
    both(lambda L: L.ones(2, 8, requires_grad=True)[1:, 1::3].t().copy_(L.ones(3, 0)))
    both(lambda L: L.zeros(3).copy_(L.ones(2)))
    both(lambda L: L.zeros(3).copy_(L.ones(2, 3)))


def test_pow_with_a_bool_exponent_tensor_has_no_gradient_for_the_base():
    def f(L):
        x = L.tensor([2., 3.], requires_grad=True)
        y = x ** L.tensor([True, False])
        y.sum().backward()
    both(f)
    both(lambda L: L.pow(L.tensor([2., 3.]), L.tensor([True, False])))


def test_an_integer_out_of_range_is_reported_before_a_mask_mismatch():
    both(lambda L: L.zeros(5, 1, 3)[..., -5, L.tensor([True]), None])


def test_zeta_gradient_in_q():
    def f(L):
        q = L.tensor([1., 2., 0.5], requires_grad=True)
        r = L.special.zeta(L.tensor([2., 3., 4.]), q)
        r.backward(L.tensor([1., -1., 0.5]))
        return r, q.grad
    both(f)

    def int_x(L):  # torch forms x + 1. in float32, which the 0-d float64 q does not widen
        q = L.tensor(2.75, dtype=L.float64, requires_grad=True)
        L.special.zeta(L.tensor([5, 8, 5, 8]), q).sum().backward()
        return q.grad
    both(int_x)
    both(lambda L: L.special.zeta(L.tensor([True, False]), L.tensor([1.5, 2.], requires_grad=True)).sum().backward())

    def both_grad(L):
        L.special.zeta(L.tensor([2.], requires_grad=True), L.tensor([1.])).sum().backward()
    both(both_grad)


def test_node_names_of_composed_functions():
    def f(L):
        x = L.tensor([[1., -2.], [3., 0.5]], requires_grad=True)
        return ([L.linalg.matrix_norm(x, o, keepdim=k) for o in (1, -1, float("inf"), -float("inf")) for k in (False, True)]
                + [L.linalg.matrix_norm(x.unsqueeze(0), 1, dim=(-1, -2)), L.special.ndtr(x),
                   L.distributions.LogNormal(x, 1.0).log_prob(L.ones(2, 2))])
    both(f)


def test_padding_and_pooling_messages():
    for s, p in [((2, 3, 4, 1), (1, 1, 0, 0)), ((2, 3, 4, 1), (0, 0, 5, 5)), ((2, 3, 1), (1, 1)),
                 ((1, 2, 3, 4, 1), (0, 0, 0, 0, 4, 4))]:
        both(lambda L: L.nn.functional.pad(L.zeros(*s), p, mode="reflect"))
    for shp, o in [((1, 2, 3, 4), (2, 0)), ((1, 2, 4), (0,)), ((1, 2, 2, 3, 4), (1, 0, 2))]:
        def f(L):
            fn = {4: L.nn.functional.adaptive_avg_pool2d, 3: L.nn.functional.adaptive_avg_pool1d,
                  5: L.nn.functional.adaptive_avg_pool3d}[len(shp)]
            fn(L.ones(*shp, requires_grad=True), o).sum().backward()
        both(f)
