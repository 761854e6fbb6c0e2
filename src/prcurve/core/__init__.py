"""The count state and its views: the binary core every number comes from.

- :mod:`~prcurve.core.counts`: :class:`~prcurve.ThresholdCounts`, the exact state
  (tp, fp at every distinct score), and the recall steps AP needs;
- :mod:`~prcurve.core.binned`: :class:`~prcurve.BinnedCounts`, the same state per bin,
  and the bounds a binned state puts on the exact AP;
- :mod:`~prcurve.core.undefined`: the one policy for undefined values (0/0);
- :mod:`~prcurve.core.confusion`: the confusion matrix and every rate of it;
- :mod:`~prcurve.core.average_precision`: average precision in every named method;
- :mod:`~prcurve.core.curve`: :class:`~prcurve.PRCurve`, every view of a state;
- :mod:`~prcurve.core.table`: :class:`~prcurve.Table`, the tabular form views return.

Everything here is binary (one positive class); multi-class dispatch is in
:mod:`prcurve.space.multiclass`, above.
"""
