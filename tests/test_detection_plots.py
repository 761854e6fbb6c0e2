"""Detection plots draw what the evaluation holds (numbers only from the evaluation)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from tests.test_detection_coco import random_case

from prcurve.detection import evaluate_coco, evaluate_voc

matplotlib.use("Agg")


def test_iou_curves_are_the_mean_precision_rows() -> None:
    import matplotlib.pyplot as plt

    evaluation = evaluate_coco(*random_case(3))
    figure = evaluation.plot_iou_curves(iou_thresholds=[0.5, 0.75])
    lines = figure.axes[0].get_lines()
    valid = (evaluation.precision[0, :, :, 0, -1] > -1).all(axis=0)
    mean = evaluation.precision[0, :, valid, 0, -1].T.mean(axis=1)
    np.testing.assert_allclose(lines[0].get_ydata(), mean)
    assert lines[0].get_label() == f"IoU=0.50: AP {evaluation.stats[1]:.3f}"
    assert lines[1].get_label() == f"IoU=0.75: AP {evaluation.stats[2]:.3f}"
    k = int(np.flatnonzero(valid)[0])
    one = evaluation.plot_iou_curves(category=evaluation.categories[k].item())
    np.testing.assert_allclose(one.axes[0].get_lines()[0].get_ydata(),
                               evaluation.precision[0, :, k, 0, -1])
    plt.close("all")


@pytest.mark.parametrize("protocol", ["coco", "voc"])
def test_class_curves_draw_each_category_curve(protocol: str) -> None:
    import matplotlib.pyplot as plt

    ground_truth, results = random_case(5)
    evaluation = (evaluate_coco if protocol == "coco" else evaluate_voc)(ground_truth, results)
    figure = evaluation.plot_class_curves()
    with_gt = [k for k in range(evaluation.categories.shape[0])
               if (evaluation.n_pos[k] if evaluation.n_pos.ndim == 1
                   else evaluation.n_pos[k, 0]) > 0]
    assert len(figure.axes) == len(with_gt)
    for ax, k in zip(figure.axes, with_gt, strict=True):
        curve = evaluation.curve(evaluation.categories[k].item(), zero_division=0)
        if len(curve):
            np.testing.assert_allclose(ax.get_lines()[0].get_xdata()[1:], curve.recall)
            best = curve.best_f()
            assert ax.get_lines()[1].get_xdata().tolist() == [best.recall]
    plt.close("all")


@pytest.mark.parametrize("categories", [1, 2, 3, 5])
def test_few_categories_are_not_thumbnails(categories: int) -> None:
    # One category was a 2.4-inch figure (360 pixels wide at 150 dpi) with its title
    # wrapped: panels are at least 2.4 inches and the figure at least 4.8 inches wide.
    import matplotlib.pyplot as plt

    evaluation = evaluate_coco(*random_case(5))
    chosen = [c.item() for c in evaluation.categories[:categories]]
    figure = evaluation.plot_class_curves(chosen)
    width, height = figure.get_size_inches()
    assert width >= 4.8
    assert width == pytest.approx(max(4.8, 2.4 * min(len(chosen), 8)))
    for ax in figure.axes:  # every panel's axes at least 1.6 by 1.3 inches
        box = ax.get_position()
        assert box.width * width >= 1.6
        assert box.height * height >= 1.3
    assert "\n" not in figure.get_suptitle()  # the title fits one line
    plt.close("all")
