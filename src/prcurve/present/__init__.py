"""Presentation: plots and the report. Nothing here computes a metric.

- :mod:`~prcurve.present.plot`: PR curves with the unachievable region, iso-F lines
  and best-F points, and threshold plots (matplotlib, imported when used);
- :mod:`~prcurve.present.report`: the report document and its formats (text, rich,
  JSON, CSV, files);
- :mod:`~prcurve.present.report_build`: the report's numbers read off each curve.
"""
