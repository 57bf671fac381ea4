"""Figure files in a folder: one self-contained ``figures.html`` and, when a browser exists,
a PNG and an SVG of each figure; the figures ``dpsum run`` and ``dpsum reproduce`` write.

One writer for both commands (:func:`write_figures`), and the words that say what it wrote
(:meth:`FigureFiles.sentence`), honest when the images were skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import plotly.graph_objects as go

from dpsum_core.plots.export import browser_available, image_export, report_html, to_image
from dpsum_core.plots.results import isotonic_figure, small_multiples_figure
from dpsum_core.plots.style import run_stem
from dpsum_core.simulate.results import ExperimentResult
from dpsum_core.text import counted

REPORT = "figures.html"
IMAGE_FORMATS = ("png", "svg")  # each figure's images, in one browser session


@dataclass(frozen=True)
class NamedFigure:
    """A figure, its heading in ``figures.html`` and its images' file name without extension."""

    title: str
    stem: str
    figure: go.Figure


@dataclass(frozen=True)
class FigureFiles:
    """What :func:`write_figures` wrote.

    Attributes
    ----------
    names
        The files written, ``figures.html`` first, then each figure's images.
    images
        How many figures were exported as images (each as PNG and SVG).
    no_browser
        Images were asked for but no browser was found, so none were written.
    """

    names: tuple[str, ...]
    images: int
    no_browser: bool

    def sentence(self, others: Sequence[str], out: Path) -> str:
        """``wrote <others>, figures.html, 4 PNG and 4 SVG files to <out>/``, saying why there
        are no images when none were written (``--no-png``, or no browser found)."""
        if self.images:
            figures = (
                f"{REPORT}, {counted(self.images, 'PNG file')} and "
                f"{counted(self.images, 'SVG file')}"
            )
        else:
            why = "no browser found" if self.no_browser else "--no-png"
            figures = f"{REPORT} (no PNG or SVG files: {why})"
        return f"wrote {', '.join([*others, figures])} to {out}/"


def write_figures(
    figures: Sequence[NamedFigure], out: Path, *, title: str, images: bool = True
) -> FigureFiles:
    """Write ``figures`` into the folder ``out`` (which exists): ``figures.html`` (plotly.js
    inlined once: opens offline) and, with ``images`` and a browser, ``<stem>.png`` and
    ``<stem>.svg`` of each, all in one browser session (:func:`~dpsum_core.plots.export.image_export`).

    Privacy
    -------
    The figures are drawn from the data without noise: the page says so at its top and every
    image carries :data:`~dpsum_core.plots.export.NOT_FOR_PUBLICATION_MARK`
    (:func:`~dpsum_core.plots.export.to_image` marks it).
    """
    (out / REPORT).write_text(
        report_html([(f.title, f.figure) for f in figures], title=title), encoding="utf-8"
    )
    names = [REPORT]
    browser = browser_available()
    if images and browser:
        with image_export():
            for f in figures:
                for fmt in IMAGE_FORMATS:
                    (out / f"{f.stem}.{fmt}").write_bytes(to_image(f.figure, fmt))
                    names.append(f"{f.stem}.{fmt}")
    exported = len(figures) if images and browser else 0
    return FigureFiles(tuple(names), exported, no_browser=images and not browser)


def run_figures(result: ExperimentResult) -> list[NamedFigure]:
    """The figures of one ``dpsum run``: noisy answers with their 5–95 % bands and relative
    errors, one panel per truncation method, each without and with isotonic regression; named
    as the dashboard names its downloads of the run (:func:`~dpsum_core.plots.style.run_stem`)."""
    return [
        NamedFigure(
            f"{what}, {'with' if iso else 'without'} isotonic regression",
            run_stem(result, f"{stem}{'_iso' if iso else ''}"),
            small_multiples_figure(result, iso=iso, kind=kind),
        )
        for kind, what, stem in (("answers", "Noisy answers", "answers"),
                                 ("error", "Relative error", "error"))
        for iso in (False, True)
    ]  # fmt: skip


def paper_figures(result: ExperimentResult, workload: str, rho: float) -> list[NamedFigure]:
    """The paper's Figures 2–4 of one experiment of ``dpsum reproduce`` (``workload`` at
    ``rho``), with isotonic regression; named ``fig2_answers_Q1_rho0.1`` and so on."""
    tag, file_tag = f"{workload}, ρ = {rho:g}", f"{workload}_rho{rho:g}"
    return [
        NamedFigure(
            f"Figure 2 — noisy answers, {tag}",
            f"fig2_answers_{file_tag}",
            small_multiples_figure(result, iso=True, kind="answers"),
        ),
        NamedFigure(
            f"Figure 3 — relative error, {tag}",
            f"fig3_relative_error_{file_tag}",
            small_multiples_figure(result, iso=True),
        ),
        NamedFigure(
            f"Figure 4 — isotonic regression (SVT), {tag}",
            f"fig4_isotonic_svt_{file_tag}",
            isotonic_figure(result, "svt"),
        ),
    ]
