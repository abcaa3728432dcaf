"""trellis.compile: NumPy arrays in (any strides), NumPy arrays out, and
every error as trellis.Error with the diagnostic."""

import numpy as np
import pytest

import trellis

DENSE = """
func.func @f(%x: tensor<2x3xf64>, %w: tensor<3x4xf64>, %b: tensor<4xf64>, %s: f64)
    -> (tensor<2x4xf64>, f64) {
  %h = nn.dense %x, %w, %b : (tensor<2x3xf64>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<2x4xf64>
  %t = arith.mulf %s, %s : f64
  return %h, %t : tensor<2x4xf64>, f64
}
func.func @ints(%i: tensor<3xi32>, %j: tensor<3xi64>) -> (tensor<3xi32>, tensor<3xi64>) {
  %a = arith.addi %i, %i : tensor<3xi32>
  return %a, %j : tensor<3xi32>, tensor<3xi64>
}
"""


@pytest.fixture(scope="module")
def module():
    return trellis.compile_module(DENSE)


def test_views_of_any_layout(module):
    f = module["f"]
    assert f.arg_types[0] == ("float64", (2, 3)) and f.result_types[1] == ("float64", ())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 2)).T                  # transposed view
    w = rng.standard_normal((6, 8))[::2, 1::2]         # strided slice
    b = np.broadcast_to(np.float64(0.5), (4,))         # zero stride
    h, t = f(x, w, b, 3.0)                             # a Python float for f64
    assert isinstance(h, np.ndarray) and h.dtype == np.float64 and h.flags.c_contiguous
    np.testing.assert_allclose(h, x @ w + 0.5, rtol=1e-14)
    assert t.shape == () and float(t) == 9.0
    assert not x.flags.writeable or np.all(np.isfinite(x))  # inputs untouched


def test_results_own_their_memory(module):
    f = module["ints"]
    i = np.array([1, 2, 3], np.int32)
    a, j = f(i, np.array([4, 5, 6], np.int64))
    del f
    np.testing.assert_array_equal(a, [2, 4, 6])
    np.testing.assert_array_equal(j, [4, 5, 6])
    assert a.dtype == np.int32 and j.dtype == np.int64
    a[0] = 7  # writable, and not the input's memory
    assert i[0] == 1


def test_errors_carry_the_diagnostic(module):
    with pytest.raises(trellis.Error, match="<string>:1:.*error"):
        trellis.compile("func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> { return %y }", "f")
    with pytest.raises(trellis.Error, match=r"no callable function @g \(callable: @f, @ints\)"):
        module["g"]
    f = module["f"]
    with pytest.raises(trellis.Error, match="takes 4 arguments, got 2"):
        f(np.zeros((2, 3)), np.zeros((3, 4)))
    with pytest.raises(trellis.Error, match=r"argument 0: expected tensor<2x3xf64>, got float32"):
        f(np.zeros((2, 3), np.float32), np.zeros((3, 4)), np.zeros(4), 1.0)
    with pytest.raises(trellis.Error, match=r"expected tensor<3x4xf64>, got float64 array of shape \(4, 3\)"):
        f(np.zeros((2, 3)), np.zeros((4, 3)), np.zeros(4), 1.0)
    with pytest.raises(trellis.Error, match="NumPy dtype complex128 has no Trellis element type"):
        f(np.zeros((2, 3), complex), np.zeros((3, 4)), np.zeros(4), 1.0)
    assert issubclass(trellis.Error, Exception) and trellis.Error.__module__ == "trellis"
