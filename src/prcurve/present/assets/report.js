// The page script of prcurve's HTML report (prcurve/present/html.py): every Bokeh
// callback runs this, with `meta`, `sources`, `union`, `markers`, `roc_markers`, `spans`
// and `tables` as arguments, then calls render(mode, value).
//
// The rates are those of prcurve.core.confusion, on one operating point's exact counts;
// tests/test_html_report.py checks them in a browser against PRCurve.at_threshold().
const states = meta.map(function (m, k) {
  const d = sources[k].data;
  return Object.assign({threshold: d.threshold, tp: d.tp, fp: d.fp}, m);
});
const thresholds = union.data.threshold;
const RATES = ["recall", "specificity", "precision", "npv", "fpr", "fnr", "fdr",
  "false_omission_rate", "accuracy", "balanced_accuracy", "f1", "mcc", "informedness",
  "markedness", "prevalence", "cohen_kappa"];
function ratio(a, b) { return b === 0 ? NaN : a / b; }
// The formulas of prcurve.core.confusion, on one operating point's counts.
function rates(tp, fp, fn, tn) {
  const recall = ratio(tp, tp + fn), specificity = ratio(tn, tn + fp);
  const precision = ratio(tp, tp + fp), npv = ratio(tn, tn + fn);
  const mccDen = Math.sqrt(((tp + fp) * (tp + fn)) * ((tn + fp) * (tn + fn)));
  return {
    recall: recall, specificity: specificity, precision: precision, npv: npv,
    fpr: ratio(fp, fp + tn), fnr: ratio(fn, fn + tp), fdr: ratio(fp, fp + tp),
    false_omission_rate: ratio(fn, fn + tn),
    accuracy: ratio(tp + tn, tp + fp + fn + tn),
    balanced_accuracy: (recall + specificity) / 2.0,
    f1: ratio(tp, tp + 0.5 * fp + (1.0 - 0.5) * fn),
    mcc: ratio(tp * tn - fp * fn, mccDen),
    informedness: recall + specificity - 1.0,
    markedness: precision + npv - 1.0,
    prevalence: ratio(tp + fn, tp + fp + fn + tn),
    cohen_kappa: ratio(2.0 * (tp * tn - fn * fp),
                       (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn)),
  };
}
function fmt(x) { return Number.isNaN(x) ? "undefined" : x.toFixed(4); }
function escape(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
function count(x) { return Number.isInteger(x) ? String(x) : x.toPrecision(6); }
// A threshold to 8 significant digits, without trailing zeros (0.7571, not 0.75710000).
function thresholdText(t) { return String(Number(t.toPrecision(8))); }
// Kept point predicting positive for score >= t: the last kept threshold >= t, or none.
function atThreshold(s, t) {
  let lo = 0, hi = s.threshold.length;  // thresholds descend
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.threshold[mid] >= t) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}
// Among kept points with key >= level: the largest other key, then the largest
// other, then the highest threshold (prcurve's precision_at_recall / recall_at_precision).
function select(s, key, level) {
  let best = -1, bestP = -1, bestS = -1;
  for (let i = 0; i < s.threshold.length; i++) {
    const tp = s.tp[i], fp = s.fp[i];
    const r = ratio(tp, s.n_pos), p = ratio(tp, tp + fp);
    const k = key === "recall" ? r : p, other = key === "recall" ? p : r;
    if (!(k >= level)) continue;
    const primary = other, secondary = k;
    if (primary > bestP || (primary === bestP && secondary > bestS)) {
      best = i; bestP = primary; bestS = secondary;
    }
  }
  return best;
}
function render(mode, value) {
  let shownThreshold = null;
  states.forEach(function (s, m) {
    let i;
    if (mode === "threshold") i = atThreshold(s, value);
    else i = select(s, mode === "precision" ? "precision" : "recall", value);
    const tp = i >= 0 ? s.tp[i] : 0.0, fp = i >= 0 ? s.fp[i] : 0.0;
    const fn = Math.max(s.n_pos - tp, 0.0), tn = Math.max(s.n_neg - fp, 0.0);
    const r = rates(tp, fp, fn, tn);
    const unreached = mode !== "threshold" && i < 0;
    const t = i >= 0 ? s.threshold[i] : NaN;
    markers[m].data = unreached || i < 0 ? {recall: [], precision: []}
      : {recall: [ratio(tp, s.n_pos)], precision: [ratio(tp, tp + fp)]};
    roc_markers[m].data = unreached ? {x: [], y: []}
      : {x: [ratio(fp, s.n_neg)], y: [ratio(tp, s.n_pos)]};
    spans[m].location = i >= 0 ? t : null;
    let where;
    if (unreached) where = "no operating point reaches " + mode + " >= " + value;
    else if (i < 0) where = "threshold above every score: nothing predicted positive";
    else if (mode === "threshold" && t !== value)
      where = "score >= " + value + ": the same predictions as threshold " + thresholdText(t) +
        (s.kept < s.n_thresholds ? " (the nearest kept threshold at or above)"
                                 : " (this model's lowest score at or above)");
    else where = "threshold " + thresholdText(t);
    let rows = "";
    RATES.forEach(function (name) {
      rows += "<tr><td>" + name + '</td><td data-rate="' + name + '">' + fmt(r[name]) +
        "</td></tr>";
    });
    const kept = s.kept < s.n_thresholds ? '<p class="prc-note">this page keeps ' + s.kept +
      " of " + s.n_thresholds + " thresholds</p>" : "";
    const cell = function (name, x) {
      return '<td data-cell="' + name + '">' + count(x) + "</td>";
    };
    tables[m].text =
      '<div class="prc-model" data-model="' + m + '" data-threshold="' + (i >= 0 ? t : "") +
      '"><h4 style="color:' + s.color + '">' + escape(s.name) + '</h4><p class="prc-where">' +
      where + "</p>" + kept +
      '<table class="prc-cm"><tr><th></th><th>actual +</th><th>actual −</th></tr>' +
      "<tr><th>predicted +</th>" + cell("tp", tp) + cell("fp", fp) + "</tr>" +
      "<tr><th>predicted −</th>" + cell("fn", fn) + cell("tn", tn) + "</tr></table>" +
      '<table class="prc-rates">' + rows + "</table></div>";
  });
}
