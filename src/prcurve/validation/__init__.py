"""Every check of user input and every message about bad input, split by what it checks.

- :mod:`~prcurve.validation.arrays`: arrays, numbers and options shared by every domain;
- :mod:`~prcurve.validation.labels`: labels, weights, score matrices, count states;
- :mod:`~prcurve.validation.space`: PR-space arguments (bounds, aggregation, intervals);
- :mod:`~prcurve.validation.ranking`: ranked-retrieval ids, cutoffs, measures, TREC files;
- :mod:`~prcurve.validation.files`: input files, columns, outputs, CLI, streaming, Dask.

This package is the lowest layer above :mod:`prcurve.errors`; nothing else in
prcurve raises :class:`~prcurve.errors.InvalidInputError`.
"""
