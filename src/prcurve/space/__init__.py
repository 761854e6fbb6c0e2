"""PR space: what the core's states mean together and in context.

- :mod:`~prcurve.space.bounds`: the unachievable region (minimum curve, minimum
  AP and AUCPR, AUCNPR, modified F) of Boyd et al., "Unachievable region in
  precision-recall space and its effect on empirical evaluation";
- :mod:`~prcurve.space.multiclass`: one-vs-rest states, and the public
  :func:`~prcurve.average_precision` and :func:`~prcurve.pr_curve` for score matrices;
- :mod:`~prcurve.space.aggregate`: combining folds, classes and tasks;
- :mod:`~prcurve.space.intervals`: bootstrap and binomial confidence intervals,
  paired comparison.
"""
