"""prcurve's PNG files (present.files.figure_writer): matplotlib's pixels, encoded by Pillow
as RGB when opaque and at a low zlib level (issue 26, item 3). Lossless: the same pixels
as matplotlib's own PNG writer, the same resolution, no text chunks."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from prcurve.present.files import PNG_COMPRESS_LEVEL, STABLE_METADATA, figure_writer


def _figure(transparent: bool, size: tuple[float, float] = (4.0, 3.0)) -> Figure:
    figure = Figure(figsize=size)
    ax = figure.add_subplot()
    ax.plot([0, 0.3, 1], [1, 0.4, 0], label="a: AP = 0.5")
    ax.fill_between([0, 1], [0, 0.3], color="0.85")
    ax.set_title("Precision–recall ≥ π")
    ax.legend()
    if transparent:
        figure.patch.set_alpha(0.0)
        ax.patch.set_alpha(0.0)
    return figure


def _matplotlibs(figure: Figure, dpi: float) -> Image.Image:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, metadata=STABLE_METADATA["png"])
    return Image.open(io.BytesIO(buffer.getvalue()))


def _ours(figure: Figure, dpi: float) -> tuple[Image.Image, bytes]:
    buffer = io.BytesIO()
    figure_writer(figure, "x.png", dpi=dpi)(buffer)
    return Image.open(io.BytesIO(buffer.getvalue())), buffer.getvalue()


@pytest.mark.parametrize("transparent", [False, True])
@pytest.mark.parametrize(("dpi", "size"), [(150, (4.0, 3.0)), (72, (4.0, 3.0)),
                                           (150, (3.33, 2.01)), (100, (6.4, 4.8))])
def test_the_same_pixels_as_matplotlibs_png(transparent: bool, dpi: float,
                                           size: tuple[float, float]) -> None:
    figure = _figure(transparent, size)
    reference = _matplotlibs(figure, dpi)
    image, data = _ours(figure, dpi)
    assert image.size == reference.size
    assert image.mode == ("RGBA" if transparent else "RGB")  # alpha only when it says something
    np.testing.assert_array_equal(np.asarray(image.convert("RGBA")),
                                  np.asarray(reference.convert("RGBA")))
    assert image.info["dpi"] == pytest.approx(reference.info["dpi"])
    assert getattr(image, "text", {}) == {} == getattr(reference, "text", {})  # no date, version
    again = io.BytesIO()
    figure_writer(figure, "x.png", dpi=dpi)(again)
    assert again.getvalue() == data  # the same bytes every time


def test_the_compression_level_is_the_documented_one() -> None:
    figure = _figure(False)
    _, data = _ours(figure, 150)
    rgb = np.asarray(Image.open(io.BytesIO(data)))
    expected = io.BytesIO()
    Image.fromarray(rgb).save(expected, format="png", dpi=(150, 150),
                              compress_level=PNG_COMPRESS_LEVEL)
    assert data == expected.getvalue()



def test_the_users_tight_bounding_box_does_not_crop_prcurves_pngs() -> None:
    """A matplotlibrc with ``savefig.bbox: tight`` crops matplotlib's own PNG; prcurve
    draws in matplotlib's defaults (present.style.drawing_style), so its file keeps the
    figure's size and equals matplotlib's PNG under those defaults."""
    import matplotlib

    figure = _figure(False)
    with matplotlib.rc_context({"savefig.bbox": "tight"}):
        cropped = _matplotlibs(figure, 150)
        image, _ = _ours(figure, 150)
    assert cropped.size != (600, 450) == image.size  # 4 x 3 inches at 150 dpi
    np.testing.assert_array_equal(np.asarray(image.convert("RGBA")),
                                  np.asarray(_matplotlibs(figure, 150).convert("RGBA")))


def test_a_canvas_of_unexpected_size_is_written_by_matplotlib(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The raw pixels' length is checked against the canvas the writer expects; when they
    disagree (a matplotlib that sizes its canvas otherwise), matplotlib writes the PNG."""
    figure = _figure(False)
    reference = _matplotlibs(figure, 150)
    monkeypatch.setattr(figure, "get_figwidth", lambda: 4.5)  # 675 px: not the canvas
    image, _ = _ours(figure, 150)
    assert image.size == reference.size == (600, 450)
    np.testing.assert_array_equal(np.asarray(image.convert("RGBA")),
                                  np.asarray(reference.convert("RGBA")))
