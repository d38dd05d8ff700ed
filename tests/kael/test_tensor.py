"""The tensor layer (issue 2): dtypes and promotion, creation, seeded randomness, views and the
storage they share, the version counter, conversion, repr and error messages.

Everything here holds on both backends and in Pyodide; nothing depends on the active backend
except through ``kael.backend_name()``.
"""

import math
import pickle

import pytest

import kael


def flat(t):
    """The elements of ``t`` in C order."""
    return t.reshape(-1).tolist()


def shares_storage(a, b):
    return a.untyped_storage() is b.untyped_storage()


# -- dtypes and promotion ------------------------------------------------------------------------


def test_the_four_dtypes_and_their_aliases():
    assert [d.name for d in (kael.float32, kael.float64, kael.int64, kael.bool)] == [
        "float32", "float64", "int64", "bool"]
    assert kael.float is kael.float32 and kael.double is kael.float64 and kael.long is kael.int64
    assert repr(kael.float64) == "kael.float64"
    assert kael.float32.is_floating_point and not kael.int64.is_floating_point
    assert [d.itemsize for d in (kael.float32, kael.float64, kael.int64, kael.bool)] == [4, 8, 8, 1]


def test_default_float_dtype_is_float32():
    assert kael.get_default_dtype() is kael.float32
    assert kael.tensor([1.0, 2.0]).dtype is kael.float32
    assert kael.tensor([1, 2]).dtype is kael.int64
    assert kael.tensor([True, False]).dtype is kael.bool
    assert kael.tensor([1, 2.5]).dtype is kael.float32
    assert kael.zeros(2).dtype is kael.float32


def test_python_float_scalar_does_not_widen_float32():
    x = kael.ones(3)
    assert (x * 2.0).dtype is kael.float32
    assert (2.0 * x).dtype is kael.float32
    assert (x + 1).dtype is kael.float32
    assert (x / 3).dtype is kael.float32
    assert (x ** 2).dtype is kael.float32


def test_int_tensor_with_float_tensor_gives_the_float_dtype():
    i = kael.tensor([1, 2, 3])
    assert (i + kael.ones(3)).dtype is kael.float32
    assert (i + kael.ones(3, dtype=kael.float64)).dtype is kael.float64
    assert (kael.ones(3) + kael.ones(3, dtype=kael.float64)).dtype is kael.float64
    assert (i * 2.5).dtype is kael.float32
    assert (i * 2).dtype is kael.int64
    assert (i / 2).dtype is kael.float32  # true division of integers gives floats
    assert (i / 2).tolist() == [0.5, 1.0, 1.5]
    assert (kael.tensor([True, False]) + 1).dtype is kael.int64


def test_zero_dim_tensor_does_not_widen_a_dimensioned_tensor():
    x = kael.ones(3)
    assert (x * kael.tensor(2.0, dtype=kael.float64)).dtype is kael.float32
    assert (kael.tensor(2, dtype=kael.int64) * kael.tensor([True])).dtype is kael.int64
    # ... unless its category is higher: then it decides, with its own width.
    assert (kael.tensor([1, 2]) * kael.tensor(2.0, dtype=kael.float64)).dtype is kael.float64
    # two 0-d tensors promote normally
    assert (kael.tensor(1.0) + kael.tensor(1.0, dtype=kael.float64)).dtype is kael.float64


def test_set_default_dtype_changes_new_float_tensors_and_scalar_promotion():
    kael.set_default_dtype(kael.float64)
    assert kael.get_default_dtype() is kael.float64
    assert kael.tensor([1.5]).dtype is kael.float64
    assert kael.zeros(2).dtype is kael.float64
    assert kael.rand(2).dtype is kael.float64
    assert (kael.tensor([1, 2]) * 0.5).dtype is kael.float64
    assert (kael.ones(2, dtype=kael.float32) * 0.5).dtype is kael.float32
    kael.set_default_dtype(kael.float32)
    assert kael.tensor([1.5]).dtype is kael.float32


def test_set_default_dtype_refuses_non_float():
    with pytest.raises(TypeError, match="int64"):
        kael.set_default_dtype(kael.int64)


def test_to_and_casts():
    x = kael.tensor([1.7, -1.7, 0.0])
    assert x.to(kael.int64).tolist() == [1, -1, 0]  # truncation toward zero
    assert x.to(kael.bool).tolist() == [True, True, False]
    assert x.double().dtype is kael.float64
    assert x.long().dtype is kael.int64
    assert kael.tensor([1, 2]).float().dtype is kael.float32
    assert x.to(kael.float32) is x


# -- creation --------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [kael.zeros, kael.ones, kael.empty, kael.rand, kael.randn])
def test_sized_creation_accepts_dtype_and_requires_grad(make):
    t = make(2, 3, dtype=kael.float64, requires_grad=True)
    assert t.shape == (2, 3) and t.dtype is kael.float64
    assert t.requires_grad and t.is_leaf and t.grad_fn is None
    assert make((4,)).shape == (4,)
    assert make(2, 3).dtype is kael.float32 and not make(2).requires_grad


def test_zeros_ones_full_values():
    assert kael.zeros(2, 2).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert kael.ones(3, dtype=kael.int64).tolist() == [1, 1, 1]
    assert kael.empty(2).tolist() == [0.0, 0.0]
    f = kael.full((2,), 1.5)
    assert f.tolist() == [1.5, 1.5] and f.dtype is kael.float32
    assert kael.full((2,), 7).dtype is kael.int64
    assert kael.full((1,), True).dtype is kael.bool
    assert kael.full((2,), 3, dtype=kael.float64).tolist() == [3.0, 3.0]
    g = kael.full((2, 2), 0.5, requires_grad=True)
    assert g.requires_grad


def test_arange_linspace_eye():
    a = kael.arange(5)
    assert a.tolist() == [0, 1, 2, 3, 4] and a.dtype is kael.int64
    assert kael.arange(2, 8, 3).tolist() == [2, 5]
    b = kael.arange(0, 1, 0.25)
    assert b.dtype is kael.float32 and b.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert kael.arange(3, dtype=kael.float64).tolist() == [0.0, 1.0, 2.0]
    assert kael.arange(5, 0, -2).tolist() == [5, 3, 1]
    lin = kael.linspace(0, 1, 5)
    assert lin.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0] and lin.dtype is kael.float32
    assert kael.linspace(-1, 1, 3, dtype=kael.float64).tolist() == [-1.0, 0.0, 1.0]
    assert kael.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert kael.eye(2, 3, dtype=kael.int64).tolist() == [[1, 0, 0], [0, 1, 0]]
    assert kael.arange(3, requires_grad=False).requires_grad is False
    assert kael.linspace(0, 1, 2, requires_grad=True).requires_grad


def test_like_functions_keep_shape_and_dtype():
    x = kael.ones(2, 3, dtype=kael.float64)
    for t in (kael.zeros_like(x), kael.ones_like(x), kael.empty_like(x), kael.rand_like(x),
              kael.randn_like(x), kael.full_like(x, 2.0)):
        assert t.shape == (2, 3) and t.dtype is kael.float64
    assert kael.zeros_like(x).tolist() == [[0.0] * 3] * 2
    assert kael.full_like(x, 2.0).tolist() == [[2.0] * 3] * 2
    assert kael.ones_like(x, dtype=kael.int64).dtype is kael.int64
    assert kael.zeros_like(x, requires_grad=True).requires_grad
    r = kael.randint_like(kael.zeros(4, dtype=kael.int64), 0, 3)
    assert r.dtype is kael.int64 and all(0 <= v < 3 for v in r.tolist())


def test_tensor_from_data_copies_and_checks():
    src = kael.tensor([1.0, 2.0])
    copy = kael.tensor(src)
    assert not shares_storage(copy, src)
    assert kael.tensor([[1, 2], [3, 4]], dtype=kael.float64).dtype is kael.float64
    assert kael.tensor(3.5).shape == () and kael.tensor(3.5).item() == 3.5
    assert kael.tensor([]).shape == (0,)
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        kael.tensor([[1, 2], [3]])
    assert kael.tensor([1.0], requires_grad=True).requires_grad


def test_negative_size_is_refused():
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        kael.zeros(2, -1)


# -- seeded randomness ------------------------------------------------------------------------------
# Computed once; they must hold on both backends, in CPython and in Pyodide.


def test_manual_seed_rand_gives_known_float32_values():
    kael.manual_seed(2024)
    assert kael.rand(4).tolist() == [
        0.47009071707725525, 0.7282642722129822, 0.3037513494491577, 0.8872982859611511]


def test_manual_seed_randn_gives_known_values():
    kael.manual_seed(2024)
    kael.rand(4)
    got = kael.randn(5, dtype=kael.float64).tolist()
    want = [-0.21394005166222554, -1.0048857966411393, 0.02383870516705027, 0.7847312289734277,
            -1.829874940995796]
    assert all(abs(g - w) <= 1e-12 for g, w in zip(got, want)), got
    assert kael.randint(0, 100, (6,)).tolist() == [53, 67, 93, 78, 27, 39]
    assert kael.randn(3).tolist() == [-0.6052402257919312, 1.0970286130905151, 0.06009981408715248]


def test_manual_seed_float64_rand_and_randperm():
    kael.manual_seed(7)
    got = kael.rand(2, 2, dtype=kael.float64).tolist()
    want = [[0.32383276483316237, 0.15084917392450192], [0.6509344730398537, 0.07243628666754276]]
    assert all(abs(g - w) <= 1e-12 for gr, wr in zip(got, want) for g, w in zip(gr, wr))
    assert kael.randperm(5).tolist() == [2, 3, 1, 0, 4]


def test_same_seed_repeats_and_ranges_hold():
    kael.manual_seed(11)
    a = (kael.rand(20).tolist(), kael.randn(7).tolist(), kael.randint(3, 9, (30,)).tolist())
    kael.manual_seed(11)
    b = (kael.rand(20).tolist(), kael.randn(7).tolist(), kael.randint(3, 9, (30,)).tolist())
    assert a == b
    assert all(0.0 <= v < 1.0 for v in a[0])
    assert all(3 <= v < 9 for v in a[2]) and kael.initial_seed() == 11
    assert kael.randint(5, size=(3,)).dtype is kael.int64
    kael.manual_seed(12)
    assert kael.rand(20).tolist() != a[0]


def test_generator_object_is_independent_of_the_default():
    g1 = kael.Generator(5)
    g2 = kael.Generator(5)
    kael.manual_seed(0)
    a = kael.rand(3, generator=g1).tolist()
    kael.rand(10)
    assert kael.rand(3, generator=g2).tolist() == a


def test_randint_refuses_empty_range():
    with pytest.raises(RuntimeError, match="from=5 >= to=5"):
        kael.randint(5, 5, (2,))


# -- shape, size, stride ------------------------------------------------------------------------------


def test_shape_size_dim_numel():
    x = kael.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, tuple)
    assert repr(x.shape) == "kael.Size([2, 3, 4])"
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.dim() == 3 and x.ndim == 3 and x.numel() == 24 and len(x) == 2
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12 and x.stride(-1) == 1
    assert x.storage_offset() == 0 and x.is_contiguous()
    assert x.element_size() == 4 and x.nbytes == 96
    assert kael.tensor(1.0).shape == () and kael.tensor(1.0).numel() == 1


def test_a_new_size_one_dim_reports_pytorchs_stride():
    x = kael.zeros(2, 3, 4)
    assert x[None].stride() == (24, 12, 4, 1)
    assert x[:, None, :, None].stride() == (12, 12, 4, 4, 1)
    assert x.unsqueeze(-1).stride() == (12, 4, 1, 1)
    assert kael.zeros(3).unsqueeze(0).expand(4, 3).stride() == (0, 1)  # expanded dims stay 0


# -- views share storage -------------------------------------------------------------------------------


def grid():
    """[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]] as float32."""
    return kael.arange(12, dtype=kael.float32).reshape(3, 4)


def assert_view(v, base, shape, stride, offset):
    assert shares_storage(v, base)
    assert v.shape == shape, v.shape
    assert v.stride() == stride, v.stride()
    assert v.storage_offset() == offset, v.storage_offset()


def test_view_and_reshape_without_copy_share_storage():
    x = grid()
    v = x.view(2, 6)
    assert_view(v, x, (2, 6), (6, 1), 0)
    assert_view(x.view(-1), x, (12,), (1,), 0)
    r = x.reshape(4, 3)
    assert_view(r, x, (4, 3), (3, 1), 0)
    v[0, 0] = 100.0
    assert x[0, 0].item() == 100.0 and r[0, 0].item() == 100.0


def test_reshape_copies_only_when_it_must():
    x = grid()
    t = x.T
    r = t.reshape(12)
    assert not shares_storage(r, x)
    assert r.tolist() == [0.0, 4.0, 8.0, 1.0, 5.0, 9.0, 2.0, 6.0, 10.0, 3.0, 7.0, 11.0]
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.view(12)
    # a transposed tensor can still be viewed along compatible dims
    assert_view(t.reshape(4, 3), x, (4, 3), (1, 4), 0)


def test_transpose_permute_T_mT():
    x = grid()
    assert_view(x.transpose(0, 1), x, (4, 3), (1, 4), 0)
    assert_view(x.T, x, (4, 3), (1, 4), 0)
    assert x.T.tolist() == [[0.0, 4.0, 8.0], [1.0, 5.0, 9.0], [2.0, 6.0, 10.0], [3.0, 7.0, 11.0]]
    assert not x.T.is_contiguous()
    b = kael.zeros(2, 3, 4)
    assert_view(b.permute(2, 0, 1), b, (4, 2, 3), (1, 12, 4), 0)
    assert_view(b.mT, b, (2, 4, 3), (12, 1, 4), 0)
    assert_view(b.T, b, (4, 3, 2), (1, 4, 12), 0)
    assert_view(b.transpose(-1, 0), b, (4, 3, 2), (1, 4, 12), 0)
    assert x.t().shape == (4, 3)


def test_unsqueeze_squeeze_flatten_expand():
    x = grid()
    assert_view(x.unsqueeze(0), x, (1, 3, 4), (12, 4, 1), 0)
    assert_view(x.unsqueeze(-1), x, (3, 4, 1), (4, 1, 1), 0)
    u = x.unsqueeze(1)
    assert_view(u, x, (3, 1, 4), (4, 4, 1), 0)
    assert_view(u.squeeze(1), x, (3, 4), (4, 1), 0)
    assert_view(u.squeeze(), x, (3, 4), (4, 1), 0)
    assert u.squeeze(0).shape == (3, 1, 4)  # squeezing a dim that is not 1 does nothing
    assert_view(x.flatten(), x, (12,), (1,), 0)
    b = kael.zeros(2, 3, 4)
    assert_view(b.flatten(1), b, (2, 12), (12, 1), 0)
    assert_view(b.flatten(0, 1), b, (6, 4), (4, 1), 0)
    row = kael.tensor([1.0, 2.0, 3.0])
    e = row.expand(2, 3)
    assert_view(e, row, (2, 3), (0, 1), 0)
    assert e.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    assert_view(row.expand(2, -1), row, (2, 3), (0, 1), 0)
    assert_view(row.broadcast_to((4, 3)), row, (4, 3), (0, 1), 0)
    col = kael.zeros(3, 1)
    assert_view(col.expand(3, 5), col, (3, 5), (1, 0), 0)
    row[1] = 20.0
    assert e[1, 1].item() == 20.0


def test_basic_indexing_and_slicing_share_storage():
    x = grid()
    assert_view(x[1], x, (4,), (1,), 4)
    assert_view(x[-1], x, (4,), (1,), 8)
    assert_view(x[:, 1], x, (3,), (4,), 1)
    assert_view(x[:, -1], x, (3,), (4,), 3)
    s = x[1:, ::2]
    assert_view(s, x, (2, 2), (4, 2), 4)
    assert s.tolist() == [[4.0, 6.0], [8.0, 10.0]]
    assert_view(x[::2, 1::2], x, (2, 2), (8, 2), 1)
    assert x[::2, 1::2].tolist() == [[1.0, 3.0], [9.0, 11.0]]
    assert_view(x[-2:, -3:-1], x, (2, 2), (4, 1), 5)
    n = x[None]
    assert shares_storage(n, x) and n.shape == (1, 3, 4)
    assert x[:, None, 1].shape == (3, 1)
    assert_view(x[..., 2], x, (3,), (4,), 2)
    assert_view(x[1, ...], x, (4,), (1,), 4)
    b = kael.zeros(2, 3, 4)
    assert_view(b[..., 1:3], b, (2, 3, 2), (12, 4, 1), 1)
    assert_view(b[1, ..., 0], b, (3,), (4,), 12)
    assert x[2, 3].shape == () and x[2, 3].item() == 11.0
    assert_view(x[2, 3], x, (), (), 11)  # a 0-d view, not a copy of the number
    x[2, 3].add_(100.0)
    x[0][1].fill_(-1.0)
    assert x[2, 3].item() == 111.0 and x[0, 1].item() == -1.0 and x._version == 2
    assert x[1:1].shape == (0, 4)


def test_writes_through_a_slice_are_visible_everywhere():
    x = grid()
    col = x[:, 1]
    t = x.T
    col[2] = -1.0
    assert x[2, 1].item() == -1.0 and t[1, 2].item() == -1.0
    x[0] = kael.tensor([9.0, 9.0, 9.0, 9.0])
    assert col[0].item() == 9.0
    x[::2, ::3] = 0.0
    assert x.tolist() == [[0.0, 9.0, 9.0, 0.0], [4.0, 5.0, 6.0, 7.0], [0.0, -1.0, 10.0, 0.0]]


def test_advanced_indexing_copies():
    x = grid()
    picked = x[[0, 2]]
    assert not shares_storage(picked, x)
    assert picked.tolist() == [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
    picked[0, 0] = 50.0
    assert x[0, 0].item() == 0.0
    idx = kael.tensor([2, 0, 2])
    assert x[idx, 1].tolist() == [9.0, 1.0, 9.0]
    assert x[kael.tensor([0, 1]), kael.tensor([3, 2])].tolist() == [3.0, 6.0]
    mask = x > 8
    m = x[mask]
    assert m.tolist() == [9.0, 10.0, 11.0] and not shares_storage(m, x)
    assert x[:, [True, False, False, True]].tolist() == [[0.0, 3.0], [4.0, 7.0], [8.0, 11.0]]


def test_detach_shares_storage_and_version():
    x = kael.ones(3, requires_grad=True)
    d = x.detach()
    assert shares_storage(d, x) and not d.requires_grad and d.is_leaf
    v = x._version
    d.add_(1.0)
    assert x._version == v + 1 == d._version
    assert x.tolist() == [2.0, 2.0, 2.0]


def test_contiguous_and_clone():
    x = grid()
    assert x.contiguous() is x
    t = x.T
    c = t.contiguous()
    assert c.is_contiguous() and c.stride() == (3, 1) and not shares_storage(c, x)
    assert c.tolist() == t.tolist()
    k = x.clone()
    assert not shares_storage(k, x) and k.tolist() == x.tolist() and k.dtype is x.dtype
    k[0, 0] = 7.0
    assert x[0, 0].item() == 0.0
    s = x[:, 1:3].clone()
    assert s.is_contiguous() and s.storage_offset() == 0


# -- conversion -----------------------------------------------------------------------------------------


def test_item_and_tolist():
    assert kael.tensor(2.5).item() == 2.5 and isinstance(kael.tensor(2.5).item(), float)
    assert kael.tensor([7]).item() == 7 and isinstance(kael.tensor([7]).item(), int)
    assert kael.tensor(True).item() is True
    assert kael.tensor([[1, 2]]).tolist() == [[1, 2]]
    assert kael.tensor(3).tolist() == 3
    assert all(type(v) is float for v in kael.ones(3).tolist())
    assert float(kael.tensor([0.5])) == 0.5 and int(kael.tensor(3)) == 3
    with pytest.raises((RuntimeError, ValueError), match="3 elements"):
        kael.ones(3).item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(kael.ones(2))


def test_float32_values_are_single_precision():
    assert kael.tensor([0.1]).item() == 0.10000000149011612
    assert kael.tensor([0.1], dtype=kael.float64).item() == 0.1
    assert (kael.tensor([0.1]) * 3).item() == 0.30000001192092896


def test_numpy_shares_memory_on_the_numpy_backend():
    np = pytest.importorskip("numpy")
    if kael.backend_name() != "numpy":  # PyTorch code expects numpy(): a copy of the python backend's list
        x = kael.tensor([[1.0, 2.0]])
        a = x.numpy()
        a[0, 0] = 5.0
        assert a.dtype == np.float32 and a.tolist() == [[5.0, 2.0]] and x.tolist() == [[1.0, 2.0]]
        assert kael.tensor([True]).numpy().dtype == np.bool_
        return
    x = kael.ones(2, 2)
    a = x.numpy()
    a[0, 0] = 5.0
    assert x[0, 0].item() == 5.0 and a.dtype == np.float32
    with pytest.raises(RuntimeError, match="detach"):
        kael.ones(2, requires_grad=True).numpy()


def test_arrays_of_another_backend_are_converted_never_wrapped():
    """One backend per process (KAEL_BACKEND, chosen at import): a numpy array handed to kael on
    the python backend becomes a python-backend copy, so tensors of two backends never mix."""
    np = pytest.importorskip("numpy")
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = kael.from_numpy(a)
    assert type(t._data) is kael.tensor([1.0])._data.__class__
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and t.dtype is kael.float32
    a[0, 0] = 9.0
    shares = kael.backend_name() == "numpy"  # from_numpy shares memory only where it can
    assert (t[0, 0].item() == 9.0) is shares
    assert kael.tensor(a).tolist()[0][0] == 9.0 and type(kael.tensor(a)._data) is type(t._data)


def test_pickle_round_trip():
    x = kael.tensor([[1.5, 2.0]], dtype=kael.float64, requires_grad=True)
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist() and y.dtype is kael.float64 and y.requires_grad


def test_repr_like_pytorch():
    assert repr(kael.tensor([1.0, 2.5])) == "tensor([1.0000, 2.5000])"
    assert repr(kael.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(kael.tensor(2.5)) == "tensor(2.5000)"
    assert repr(kael.tensor([1, 2, 3])) == "tensor([1, 2, 3])"
    assert repr(kael.tensor(3)) == "tensor(3)"
    assert repr(kael.tensor([True, False])) == "tensor([ True, False])"
    assert repr(kael.tensor([1.0, 2.0], dtype=kael.float64)) == "tensor([1., 2.], dtype=kael.float64)"
    assert repr(kael.tensor([[1.5, 2.0], [3.0, 4.0]])) == (
        "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]])")
    assert repr(kael.tensor([1.0, -2.5], requires_grad=True)) == (
        "tensor([ 1.0000, -2.5000], requires_grad=True)")
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward>)"
    assert repr(kael.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(kael.tensor([float("nan"), float("inf"), 1.5])) == "tensor([   nan,    inf, 1.5000])"
    assert repr(kael.zeros(0)) == "tensor([])"
    # The strings below are what PyTorch 2.13 prints for the same tensors.
    assert repr(kael.zeros(2, 0)) == "tensor([], size=(2, 0))"
    assert repr(kael.zeros(0, dtype=kael.int64)) == "tensor([], dtype=kael.int64)"
    assert repr(kael.tensor([100000.0, 1.0])) == "tensor([1.0000e+05, 1.0000e+00])"
    assert repr(kael.tensor([0.001, 2.0])) == "tensor([1.0000e-03, 2.0000e+00])"
    assert repr(kael.tensor([0.0, 1000.0])) == "tensor([   0., 1000.])"
    assert repr(kael.tensor([float("nan"), 1.0])) == "tensor([nan, 1.])"
    assert repr(kael.tensor([-0.0, 1.5])) == "tensor([-0.0000, 1.5000])"
    assert repr(kael.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    assert repr(kael.arange(2000.0)) == (
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03])")
    assert repr(kael.linspace(0, 1, 12)) == (
        "tensor([0.0000, 0.0909, 0.1818, 0.2727, 0.3636, 0.4545, 0.5455, 0.6364, 0.7273,\n"
        "        0.8182, 0.9091, 1.0000])")
    assert repr(kael.zeros(3, 1000)) == (
        "tensor([[0., 0., 0.,  ..., 0., 0., 0.],\n"
        "        [0., 0., 0.,  ..., 0., 0., 0.],\n"
        "        [0., 0., 0.,  ..., 0., 0., 0.]])")


def test_repr_follows_the_default_dtype():
    kael.set_default_dtype(kael.float64)
    assert repr(kael.tensor([1.5])) == "tensor([1.5000])"
    assert repr(kael.tensor([1.5], dtype=kael.float32)) == "tensor([1.5000], dtype=kael.float32)"


# -- in-place ops and the version counter ---------------------------------------------------------------

INPLACE = [
    ("add_", lambda t: t.add_(1.0), [1.0, 2.0, 3.0, 4.0]),
    ("add_ alpha", lambda t: t.add_(kael.ones(4), alpha=2), [2.0, 3.0, 4.0, 5.0]),
    ("sub_", lambda t: t.sub_(kael.tensor([1.0, 1.0, 1.0, 1.0])), [-1.0, 0.0, 1.0, 2.0]),
    ("mul_", lambda t: t.mul_(2.0), [0.0, 2.0, 4.0, 6.0]),
    ("div_", lambda t: t.div_(2.0), [0.0, 0.5, 1.0, 1.5]),
    ("zero_", lambda t: t.zero_(), [0.0, 0.0, 0.0, 0.0]),
    ("fill_", lambda t: t.fill_(7.0), [7.0, 7.0, 7.0, 7.0]),
    ("copy_", lambda t: t.copy_(kael.tensor([4.0, 3.0, 2.0, 1.0])), [4.0, 3.0, 2.0, 1.0]),
    ("copy_ broadcast", lambda t: t.copy_(kael.tensor(5.0)), [5.0, 5.0, 5.0, 5.0]),
    ("clamp_", lambda t: t.clamp_(1.0, 2.0), [1.0, 1.0, 2.0, 2.0]),
    ("pow_", lambda t: t.pow_(2), [0.0, 1.0, 4.0, 9.0]),
    ("setitem", lambda t: t.__setitem__(1, 10.0), [0.0, 10.0, 2.0, 3.0]),
    ("setitem slice", lambda t: t.__setitem__(slice(0, 4, 2), kael.tensor([8.0, 9.0])),
     [8.0, 1.0, 9.0, 3.0]),
    ("setitem mask", lambda t: t.__setitem__(t > 1.5, 0.0), [0.0, 1.0, 0.0, 0.0]),
    ("setitem list", lambda t: t.__setitem__([0, 3], -1.0), [-1.0, 1.0, 2.0, -1.0]),
    ("+=", lambda t: t.__iadd__(1.0), [1.0, 2.0, 3.0, 4.0]),
    ("*=", lambda t: t.__imul__(3.0), [0.0, 3.0, 6.0, 9.0]),
]


@pytest.mark.parametrize("name,op,expected", INPLACE, ids=[c[0] for c in INPLACE])
def test_every_inplace_op_bumps_version_once_and_is_seen_through_views(name, op, expected):
    base = kael.arange(4, dtype=kael.float32)
    base_view = base.view(2, 2)
    strided = base[::2]
    detached = base.detach()
    before = base._version
    result = op(base)
    if name not in ("setitem", "setitem slice", "setitem mask", "setitem list"):
        assert result is base
    assert base._version == before + 1
    assert base_view._version == strided._version == detached._version == before + 1
    assert base.tolist() == expected
    assert flat(base_view) == expected
    assert strided.tolist() == expected[::2]
    assert detached.tolist() == expected


def test_inplace_through_a_view_bumps_the_shared_counter():
    base = kael.zeros(2, 3)
    col = base[:, 1]
    col.add_(1.0)
    assert base._version == 1 and col._version == 1
    assert base.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
    base.T.mul_(2.0)
    assert base._version == 2 and base.tolist() == [[0.0, 2.0, 0.0], [0.0, 2.0, 0.0]]
    assert kael.zeros(2)._version == 0
    assert base.clone()._version == 0


def test_out_of_place_ops_do_not_bump_version():
    x = kael.ones(3)
    _ = x + 1, x * 2, x.sum(), x.view(3), x[0], x.T, x.clone()
    assert x._version == 0


def test_inplace_op_refuses_a_wider_source_dtype():
    i = kael.tensor([1, 2])
    with pytest.raises(RuntimeError, match="float32 can't be cast to the desired output type int64 in add_"):
        i.add_(1.5)
    with pytest.raises(RuntimeError, match="int64 in div_"):
        i.div_(2)
    i.add_(1)
    assert i.tolist() == [2, 3] and i._version == 1


# -- error messages ---------------------------------------------------------------------------------------


def test_broadcast_error_names_both_shapes():
    with pytest.raises((RuntimeError, ValueError), match=r"shapes \[2, 3\] and \[4\] cannot be broadcast"):
        kael.zeros(2, 3) + kael.zeros(4)
    with pytest.raises((RuntimeError, ValueError), match=r"\[3\] and \[2\] cannot be broadcast"):
        kael.zeros(3) * kael.zeros(2)
    with pytest.raises((RuntimeError, ValueError), match=r"\[2, 3\].*\[4\]|\[4\].*\[2, 3\]"):
        kael.zeros(2, 3).add_(kael.zeros(4))
    with pytest.raises((RuntimeError, ValueError), match=r"\[2\].*\[3\]"):
        kael.tensor([1.0, 2.0]).expand(3)


def test_index_out_of_range_names_index_dim_and_size():
    x = kael.zeros(3)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dim 0 with size 3"):
        x[5]
    with pytest.raises(IndexError, match="index -4 is out of bounds for dim 0 with size 3"):
        x[-4]
    y = kael.zeros(2, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dim 1 with size 3"):
        y[1, 3]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dim 0 with size 2"):
        y[kael.tensor([0, 7])]
    with pytest.raises(IndexError, match="index 4 is out of bounds for dim 1 with size 3"):
        y[0, 4] = 1.0
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        y[0, 0, 0]


def test_dim_out_of_range_names_the_range():
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        kael.zeros(2, 3).sum(2)
    with pytest.raises(IndexError, match=r"but got -3"):
        kael.zeros(2, 3).transpose(0, -3)
    with pytest.raises(IndexError, match=r"but got 3"):
        kael.zeros(2, 3).unsqueeze(3)


def test_shape_errors_name_the_shapes():
    with pytest.raises(RuntimeError, match=r"shape '\[4\]' is invalid for input of size 6"):
        kael.zeros(2, 3).view(4)
    with pytest.raises((RuntimeError, ValueError), match=r"shapes \[2, 3\] and \[4, 5\] do not match: 3 != 4"):
        kael.zeros(2, 3) @ kael.zeros(4, 5)
    with pytest.raises(RuntimeError, match=r"Expected shape \[2, 3\] but got \[3, 3\]"):
        kael.cat([kael.zeros(2, 3), kael.zeros(3, 3)], dim=1)
    with pytest.raises(RuntimeError, match=r"\[2\] at entry 0 and \[3\] at entry 1"):
        kael.stack([kael.zeros(2), kael.zeros(3)])
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        kael.zeros(6).view(-1, -1)


def test_dtype_errors_name_the_dtypes():
    with pytest.raises(IndexError, match="long or bool tensors, got float32"):
        kael.zeros(3)[kael.tensor([0.0])]
    with pytest.raises(RuntimeError, match="float32 can't be cast to the desired output type int64"):
        kael.tensor([1]).mul_(0.5)
    with pytest.raises(TypeError, match="unsupported dtype"):
        kael.zeros(2, dtype="complex64")


def test_backend_name_is_one_of_two():
    assert kael.backend_name() in ("numpy", "python")


def test_math_dunders_and_comparisons():
    x = kael.tensor([1.0, 2.0, 3.0])
    assert (x == 2.0).tolist() == [False, True, False]
    assert (x != 2.0).tolist() == [True, False, True]
    assert (x < 2).tolist() == [True, False, False] and (x >= 2).tolist() == [False, True, True]
    assert (x > kael.tensor([0.0, 5.0, 3.0])).tolist() == [True, False, False]
    assert (1 - x).tolist() == [0.0, -1.0, -2.0]
    assert (6 / x).tolist() == [6.0, 3.0, 2.0]
    assert (2 ** x).tolist() == [2.0, 4.0, 8.0]
    assert (-x).tolist() == [-1.0, -2.0, -3.0] and abs(-x).tolist() == [1.0, 2.0, 3.0]
    assert (kael.tensor([7, -7]) // 2).tolist() == [3, -4]
    assert (kael.tensor([7, -7]) % 3).tolist() == [1, 2]
    b = kael.tensor([True, False])
    assert (~b).tolist() == [False, True] and (b & ~b).tolist() == [False, False]
    assert (b | ~b).tolist() == [True, True]
    assert math.isclose(kael.tensor(4.0).sqrt().item(), 2.0)


# -- property: basic indexing is a view with numpy's (and Python lists') semantics -------------------


def _reference(nested, key):
    """Python list indexing applied dim by dim: the meaning of ints and slices."""
    if not key:
        return nested
    k, rest = key[0], key[1:]
    if isinstance(k, int):
        return _reference(nested[k], rest)
    return [_reference(item, rest) for item in nested[k]]


def test_random_basic_indexing_is_a_view_with_list_semantics():
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")

    @st.composite
    def shapes_and_keys(draw):
        shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
        key = []
        for n in shape[: draw(st.integers(1, len(shape)))]:
            if draw(st.booleans()):
                key.append(draw(st.integers(-n, n - 1)))
            else:
                start = draw(st.none() | st.integers(-n - 1, n + 1))
                stop = draw(st.none() | st.integers(-n - 1, n + 1))
                key.append(slice(start, stop, draw(st.none() | st.integers(1, 3))))
        return tuple(shape), tuple(key)

    @hypothesis.settings(max_examples=60, deadline=None)
    @hypothesis.given(shapes_and_keys(), st.booleans())
    def check(shape_key, transposed):
        shape, key = shape_key
        n = 1
        for s in shape:
            n *= s
        base = kael.arange(n, dtype=kael.float64).reshape(*reversed(shape)).T if transposed else \
            kael.arange(n, dtype=kael.float64).reshape(*shape)
        view = base[key]
        assert view.untyped_storage() is base.untyped_storage()
        assert view.tolist() == _reference(base.tolist(), key) or view.numel() == 0
        if view.numel():
            version = base._version
            view.fill_(-1.0)
            assert base._version == version + 1
            assert _reference(base.tolist(), key) == view.tolist()
            assert sum(v == -1.0 for v in base.reshape(-1).tolist()) == view.numel()
        leaf = kael.arange(n, dtype=kael.float64).reshape(*shape).requires_grad_()
        picked = leaf[key]
        if picked.numel():
            picked.sum().backward()
            marks = kael.zeros(*shape, dtype=kael.float64)
            marks[key] = 1.0
            assert leaf.grad.tolist() == marks.tolist()

    check()
