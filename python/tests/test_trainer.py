"""Training through trellis-train from Python: a run learns a separable
task, writes named parameters, resumes, and reports errors as trellis.Error."""

import json
import os

import numpy as np
import pytest

import trellis
from trellis import layers as tl, optim


def blobs(n, seed):
    rng = np.random.default_rng(seed)
    centers = np.random.default_rng(0).standard_normal((3, 6)) * 3
    y = rng.integers(0, 3, n).astype(np.int32)
    return {"x": centers[y] + rng.standard_normal((n, 6)), "y": y}


def make_trainer(**kw):
    return trellis.Trainer(tl.Serial(tl.Dense(16), tl.Relu(), tl.Dropout(0.1), tl.Dense(3)),
                           tl.CrossEntropyLoss(), inputs={"x": (6,), "y": ((), "i32")},
                           batch_size=16, clip_norm=1.0,
                           optimizer=optim.AdamW(optim.WarmupCosine(2e-2, 10, 200)), **kw)


def test_fit_learns_and_resumes(tmp_path):
    out = str(tmp_path / "run")
    trainer = make_trainer()
    r = trainer.fit(blobs(512, 1), steps=120, output_dir=out, eval_data=blobs(128, 2),
                    checkpoint_every=60)
    assert len(r.losses) == 120
    # Chance level is ln 3 = 1.10; the clusters are 3 standard deviations apart.
    assert r.losses[0] > 0.5 and np.mean(r.losses[-10:]) < 0.2
    assert r.evals[-1]["accuracy"] >= 0.95
    assert list(r.params) == ["dense_0.weight", "dense_0.bias", "dense_1.weight", "dense_1.bias"]
    saved = np.load(os.path.join(out, "params.npz"))
    assert sorted(saved.files) == sorted(r.params) and saved["dense_0.weight"].shape == (6, 16)

    # The saved weights, run through the model's forward pass (dropout off),
    # classify the eval data as well as @eval said.
    m = tl.Model(tl.Serial(tl.Dense(16), tl.Relu(), tl.Dropout(0.1), tl.Dense(3)), [(128, 6)],
                 mode="eval")
    ev = blobs(128, 2)
    (logits,) = m([r.params[n].astype(np.float32) for n in m.param_names], ev["x"].astype(np.float32))
    assert np.mean(np.argmax(logits, 1) == ev["y"]) == pytest.approx(r.evals[-1]["accuracy"])

    r2 = trainer.fit(blobs(512, 1), steps=150, output_dir=out, resume=True)
    assert [m["step"] for m in r2.metrics if "loss" in m][-1] == 150

    with pytest.raises(trellis.Error, match="resume"):
        trainer.fit(blobs(512, 1), steps=100, output_dir=out, resume=True)


def test_missing_array_is_named(tmp_path):
    with pytest.raises(KeyError, match="the data has no array 'y'"):
        make_trainer().fit({"x": np.zeros((8, 6))}, steps=1, output_dir=str(tmp_path))


def test_step_module_follows_the_convention():
    text = make_trainer().text
    assert 'trellis.batch = "x"' in text and 'trellis.init = "glorot_uniform"' in text
    assert "ad.value_and_grad @loss" in text and "nn.dropout" in text
    assert 'trellis.name = "accuracy"' in text
    trellis.verify(text)


def test_remat_changes_memory_not_losses(tmp_path):
    """--remat=every through fit(): the backward pass recomputes segments
    instead of storing them, and the losses are those of the stored run
    (1e-6 relative: a recomputation may round differently)."""
    data = blobs(256, 3)
    base = make_trainer().fit(data, steps=20, output_dir=str(tmp_path / "store"))
    remat = make_trainer().fit(data, steps=20, output_dir=str(tmp_path / "every"),
                               remat="every", remat_every=1)
    np.testing.assert_allclose(remat.losses, base.losses, rtol=1e-6)
    with pytest.raises(trellis.Error, match="remat"):
        make_trainer().fit(data, steps=1, output_dir=str(tmp_path / "bad"), remat="sometimes")
