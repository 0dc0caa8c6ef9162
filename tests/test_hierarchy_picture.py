"""The tree picture (one small release node by node) and the explorer's view of the noise inference removes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpviz import hierarchy as H  # noqa: E402
from dpviz.experiments import hierarchy as E  # noqa: E402
from dpviz.plots import hierarchy as P  # noqa: E402

X16 = np.array([3, 0, 0, 1, 5, 2, 0, 0, 4, 7, 1, 0, 0, 2, 3, 1])


def _brute_force_cover(n: int, b: int, start: int, stop: int, measure_root: bool) -> set[tuple[int, int]]:
    """(level, index) of every node inside [start, stop) whose parent is not inside (or is not measured)."""
    tree = H.build_tree(n, b, measure_root=measure_root)
    top = int(tree.measured_levels[-1])
    out = set()
    for lv in range(top + 1):
        s, e = tree.node_bounds(lv)
        for k in range(tree.sizes[lv]):
            if start <= s[k] and e[k] <= stop:
                if lv < top:
                    ps, pe = tree.node_bounds(lv + 1)
                    if start <= ps[k // b] and pe[k // b] <= stop:
                        continue
                out.add((lv, k))
    return out


@pytest.mark.parametrize("n,b,query,root", [(16, 2, (1, 11), True), (16, 4, (2, 15), True), (10, 3, (0, 10), False),
                                            (13, 2, (5, 13), True), (1, 2, (0, 1), True)])
def test_tree_picture_marks_exactly_the_minimal_cover(n, b, query, root):
    x = np.arange(n) % 4
    pic = E.tree_picture(x, b, 1.0, query, measure_root=root, rng=0)
    tree = pic.tree
    got = {(int(pic.level[i]), i - tree.offsets[int(pic.level[i])]) for i in np.flatnonzero(pic.in_cover)}
    assert got == _brute_force_cover(n, b, *query, root)
    # the cover tiles the query, so its true counts add up to the true answer
    assert pic.truth[pic.in_cover].sum() == x[query[0]:query[1]].sum()
    assert np.array_equal(pic.node_stop - pic.node_start, [min(tree.block(lv), n - s) for lv, s in
                                                            zip(pic.level, pic.node_start, strict=True)])


def test_tree_picture_release_and_inference_are_dpviz_s():
    pic = E.tree_picture(X16, 2, 2.0, (1, 11), rng=3)
    same = H.measure(X16, 2, 2.0, rng=3)      # the same seed gives the same release
    assert np.array_equal(pic.noisy, same.noisy) and np.array_equal(pic.node_variance, same.node_variance)
    assert np.allclose(pic.consistent, H.constrained_inference(same.noisy, 16, 2, nodes=True))
    assert pic.level_epsilons.sum() == pytest.approx(2.0)
    # consistent: every node is the sum of its leaves; the answers read off the cover
    cum = np.r_[0.0, np.cumsum(pic.consistent[:16])]
    assert np.allclose(pic.consistent, cum[pic.node_stop] - cum[pic.node_start])
    assert pic.consistent_answer == pytest.approx(pic.consistent[1:11].sum())
    assert pic.cover_answer == pytest.approx(float(H.tree_range_answers(same, [1], [11])[0]))
    # the lecture's point: inference does not give non-negative counts
    assert pic.consistent.min() < 0


@pytest.mark.parametrize("kwargs,match", [
    (dict(x=np.ones(65)), "at most 64"),
    (dict(query=(3, 3)), "start < stop"),
    (dict(query=(0, 17)), "query stop"),
    (dict(query=5), "pair"),
    (dict(query=(0.5, 3)), "query start"),
    (dict(x=-X16), "x"),
])
def test_tree_picture_refuses_bad_input_by_name(kwargs, match):
    args = dict(x=X16, branching=2, epsilon=1.0, query=(1, 11)) | kwargs
    with pytest.raises((ValueError, TypeError), match=match):
        E.tree_picture(args.pop("x"), args.pop("branching"), args.pop("epsilon"), args.pop("query"))


def test_tree_axes_draws_every_node_and_its_counts():
    pic = E.tree_picture(X16, 2, 2.0, (1, 11), rng=3)
    ax = P.tree_axes(pic)
    texts = [t.get_text() for t in ax.texts]
    assert sum(t.startswith("x=") for t in texts) == pic.tree.n_nodes
    assert f"{pic.consistent[0]:.1f}" in texts
    negative_frames = int((pic.consistent < 0).sum())
    assert len(ax.patches) == pic.tree.n_nodes + negative_frames
    filled = [p for p in ax.patches if p.get_facecolor()[3] < 1 and p.get_fill()]
    assert len(filled) == int(pic.in_cover.sum())
    plt.close(ax.figure)
    ax = P.tree_axes(pic, inference=False)
    assert len(ax.texts) == 2 * pic.tree.n_nodes and len(ax.patches) == pic.tree.n_nodes
    plt.close(ax.figure)
    unmeasured = E.tree_picture(X16, 4, 1.0, (0, 16), measure_root=False, rng=0)
    ax = P.tree_axes(unmeasured)
    assert "(not measured)" in [t.get_text() for t in ax.texts]
    plt.close(ax.figure)


def test_explorer_middle_panel_shows_the_noise_inference_removes():
    x = E.synthetic_histogram(64)
    run = E.hierarchy_explorer_run(x, 4, 1.0, trials=20, rng=0)
    cov = run.cover
    assert np.allclose(cov.noisy_error, cov.noisy - cov.truth)
    assert np.allclose(cov.consistent_error - cov.noisy_error, cov.correction)
    fig = P.explorer_figure(run)
    zero, before, after = fig.data[2], fig.data[3], fig.data[4]
    assert list(zero.y) == [0.0, 0.0]
    assert np.allclose(before.y, cov.noisy_error) and np.allclose(after.y, cov.consistent_error)
    # the bar from each node's error after inference reaches its error before: the correction
    up, down = np.asarray(after.error_y.array), np.asarray(after.error_y.arrayminus)
    assert np.allclose(np.asarray(after.y) + up - down, cov.noisy_error)
    assert "count - true count" in fig.layout.yaxis2.title.text
    a = run.answers
    assert f"{a['tree_ci'] - a['truth']:+.1f}" in fig.layout.annotations[1].text
    ax = P.cover_axes(run)
    assert f"{a['tree'] - a['truth']:+.1f}" in ax.get_title()
    plt.close(ax.figure)
