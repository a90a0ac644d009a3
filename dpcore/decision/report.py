"""A decision as one self-contained HTML file, to hand to people who were not in the room.

:func:`report_html` writes the dataset's public description, the settings, each number with
its meaning in a sentence (non-private ones labelled so), the figures inline (plotly.js is
embedded once, so the file opens offline) and the run config that reproduces it all. It holds
no private row: only the study's aggregates, the config (names and choices) and the public
description. :func:`report_pdf` prints it to PDF through a headless Chromium where one is
installed.
"""

from __future__ import annotations

import html
import json
import math
import re
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import plotly.io as pio
from plotly.offline import get_plotlyjs

from dpcore.decision.decide import Decision
from dpcore.figures.decision import decision_figures
from dpcore.figures.files import chromium_path, for_export
from dpcore.runs import STUDY_LABEL

__all__ = ["report_html", "report_pdf"]

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1000px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; }
table { border-collapse: collapse; margin: .6em 0; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .25em .5em; text-align: left; vertical-align: top; }
.np { color: #2ca02c; font-weight: 600; white-space: nowrap; }
.note { background: #f4f4f4; border-left: 4px solid #999; padding: .5em .8em; }
pre { background: #f7f7f7; padding: .8em; overflow-x: auto; font-size: .85em; }
.figure { margin: 1em 0; }
@media print {
  body { max-width: none; margin: 0; }
  .figure, table, pre { break-inside: avoid; }
  h2 { break-after: avoid; }
}
"""
_NON_PRIVATE = '<span class="np">non-private</span>'
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~<>$])")  # dpcore.text.md's escapes
_HELD = re.compile("\x00([0-9]+)\x00")
_ITALIC = re.compile(r"\*(.+?)\*")


def _e(value: object) -> str:
    return html.escape(str(value))


def _markdown(text: str) -> str:
    """A public description's paragraphs as HTML: escaped, then its **bold** and *italic*; a
    character that :func:`dpcore.text.md` escaped (``\\*``) stays literal."""
    out = []
    for paragraph in (p.strip() for p in text.split("\n\n")):
        if paragraph:
            held = _ESCAPED.sub(lambda m: f"\x00{ord(m.group(1))}\x00", paragraph)
            bold = _BOLD.sub(r"<b>\1</b>", _e(html.unescape(held)))  # md() writes &lt; for <
            styled = _ITALIC.sub(r"<i>\1</i>", bold)
            out.append("<p>" + _HELD.sub(lambda m: _e(chr(int(m.group(1)))), styled) + "</p>")
    return "".join(out)


def _number(value: float) -> str:
    if isinstance(value, float) and math.isnan(value):
        return "–"
    return f"{value:.4g}" if isinstance(value, float) else _e(value)


def _rows(table: pd.DataFrame, columns: list[str], headers: list[str]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_number(row[c])}</td>" for c in columns) + "</tr>"
                   for _, row in table.iterrows())
    return f"<table><tr>{head}</tr>{body}</table>"


def _utility(decision: Decision) -> str:
    rows = []
    for row in decision.utility.itertuples(index=False):
        label = f" ({_NON_PRIVATE})" if row.non_private else ""
        rows.append(f"<tr><td>{_e(row.quantity)}{label}</td><td>{row.value:.4g}</td>"
                    f"<td>{_e(row.spread)}</td><td>{_e(row.meaning)}</td></tr>")
    return ("<table><tr><th>quantity</th><th>value</th><th>spread</th><th>meaning</th></tr>"
            + "".join(rows) + "</table>")


def _synthetic(decision: Decision) -> str:
    if not decision.synthetic:
        return ""
    s = decision.synthetic["synthetic_summary"].iloc[0]
    items = [
        ("pMSE (main-effects logistic propensity score)", s["pmse_nonprivate"],
         f"A logistic regression on the features (main effects) trying to tell masked from "
         f"real records; 0 means it cannot. It is "
         f"{s['pmse_ratio_nonprivate']:.3g} times what two samples of one law would give."),
        ("largest correlation difference", s["max_correlation_difference_nonprivate"],
         "The largest entry of the masked minus the real correlation matrix."),
        ("mean Kolmogorov-Smirnov distance", s["mean_ks_distance_nonprivate"],
         "Per feature, how far the masked values' distribution is from the real one (0 to 1), "
         "averaged."),
        ("train on masked, test on real", s["tstr_accuracy_nonprivate"],
         "Accuracy on held-out records of a logistic regression trained on the masked records."),
        ("train on real, test on real", s["trtr_accuracy_nonprivate"],
         "The same model trained on the private records: what masking gives up."),
        ("majority class", s["majority_accuracy_nonprivate"],
         "Always guessing the most frequent class: the line to clear."),
        ("2-way k-marginal score", s["k_marginal_nonprivate"],
         "SDNist's score: 1000 when every pair of binned columns (the label included) has the "
         "real distribution, 0 when none overlaps."),
        ("records matching a real one", s["exact_match_share_nonprivate"],
         "Share of masked records equal to a real record in every binned column: copies."),
    ]
    rows = "".join(f"<tr><td>{_e(name)} ({_NON_PRIVATE})</td><td>{value:.4g}</td>"
                   f"<td>{_e(meaning)}</td></tr>" for name, value, meaning in items)
    return ("<h2>Masked data: utility report</h2><p>Every number here reads the private "
            f"records without noise ({_NON_PRIVATE}): a check for the data owner, not "
            "something to publish.</p><table><tr><th>measure</th><th>value</th>"
            f"<th>meaning</th></tr>{rows}</table>")


def _scope(decision: Decision) -> str:
    """Every step of the release that spends ε, with its ε and whether the audit covers it."""
    rows = "".join(f"<tr><td>{_e(row.step)}</td><td>{row.epsilon:.3g}</td>"
                   f"<td>{'audited' if row.audited else 'not audited'}</td></tr>"
                   for row in decision.audit_scope.table().itertuples(index=False))
    return ("<table><tr><th>step of the release that spends ε</th><th>ε</th><th>audit</th>"
            f"</tr>{rows}</table>")


def _settings(decision: Decision) -> str:
    controls = decision.config.controls
    rows = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in controls.items())
    return f"<table><tr><th>control</th><th>value</th></tr>{rows}</table>"


def _figures(decision: Decision) -> dict[str, str]:
    figs = decision_figures(decision.numbers(), release=decision.release.name,
                            epsilon=decision.epsilon)
    return {name: '<div class="figure">' + pio.to_html(
        for_export(fig), include_plotlyjs=False, full_html=False,
        config={"displayModeBar": False, "responsive": True}) + "</div>"
        for name, fig in figs.items()}


def report_html(decision: Decision) -> str:
    """The decision as one HTML document (UTF-8 text) that opens offline and prints cleanly.

    Examples
    --------
    >>> from dpcore.decision import decide
    >>> page = report_html(decide("dpcore/examples/masking-toy.json"))  # doctest: +SKIP
    """
    figs = _figures(decision)
    sentences = decision.sentences()
    b = decision.budget.iloc[0]
    description = _markdown(decision.data_description)
    config = json.dumps(decision.config.to_dict(), indent=2, ensure_ascii=False)
    title = f"Decision report: {decision.release.name} at ε = {decision.epsilon:g}"
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    plotly_js = f'<script charset="utf-8">{get_plotlyjs()}</script>'
    body = f"""
<h1>{_e(title)}</h1>
<p class="note">Written {made} by the privacy/utility explorer. Every number is a
{_e(STUDY_LABEL)}. Numbers marked {_NON_PRIVATE} read the private data without noise: they are
yardsticks for the data owner, never to be published. The report holds no private record.</p>
<h2>Data</h2><p><b>{_e(decision.data_title)}</b></p>{description}
<h2>What the release buys</h2><p>{_e(sentences['utility'])}</p>{_utility(decision)}
{figs['utility']}
{_synthetic(decision)}{figs.get('marginals', '')}{figs.get('correlation', '')}
<h2>What it risks</h2><p>{_e(sentences['risk'])}</p>
{_rows(decision.risk, ['prior', 'epsilon', 'posterior_at_most'],
       ['prior belief', 'ε', 'belief after one release, at most'])}
{_rows(decision.risk, ['tpr_at_1pct', 'tpr_at_10pct', 'epsilon_optimistic', 'epsilon_point',
                       'epsilon_pessimistic', 'epsilon_delta', 'epsilon'],
       ['caught at 1 % false alarms, at most', 'caught at 10 % false alarms, at most',
        'ε by PLD, optimistic', 'ε by PLD, point', 'ε by PLD, pessimistic', 'at δ',
        'claimed ε (δ = 0)'])}
<h2>What an attacker could show</h2><p>{_e(sentences['audit'])}</p>
{_scope(decision)}
{_rows(decision.audit, ['mechanism', 'claimed_epsilon', 'audited_lower_bound', 'gap',
                        'confidence', 'runs_per_dataset', 'limit_on_this_pair'],
       ['mechanism', 'claimed ε', 'audited lower bound', 'gap (claimed − audited)',
        'confidence', 'runs per dataset', 'correct noise allows on this pair'])}
{figs['audit']}
<p>{_e(decision.tradeoff_sentence())}</p>
{_rows(decision.audit_points, ['test', 'fpr_low', 'fpr_high', 'tpr_low', 'tpr_high', 'allowed',
                               'above'],
       ['test', 'FPR, lower', 'FPR, upper', 'TPR, lower', 'TPR, upper',
        'the claim allows at the upper FPR', 'above the curve (a bug)'])}
{figs['tradeoff']}
<h2>Budget</h2><p>{_e(sentences['budget'])}</p>
{_rows(decision.budget, ['relation', 'total', 'spent', 'left', 'releases', 'charge'],
       ['neighbouring relation', 'budget ε', 'spent', 'left', 'releases', 'this release'])
 if b['budget_set'] else ''}
<h2>Among published deployments</h2><p>{_e(sentences['deployments'])}</p>
{figs['deployments']}
{_rows(decision.deployments, ['organisation', 'name', 'year', 'epsilon', 'delta', 'unit',
                              'source'],
       ['organisation', 'deployment', 'year', 'ε', 'δ', 'unit', 'source'])}
<h2>Settings</h2>{_settings(decision)}
<p>Which data each setting was tuned on: a setting tuned on the private data without noise
is refused, a DP selection on it is charged to the ledger with the release.</p>
{_rows(decision.tuning, ['choice', 'value', 'tuned_on', 'status', 'how'],
       ['setting', 'value', 'tuned on', 'cost', 'how'])}
<h2>Reproduce it</h2><p>Save this run config as <code>run.json</code> and run
<code>python -m dpcore report run.json --out report.html</code> (or
<code>python -m dpcore run run.json --out DIR</code> for the page's tables).</p>
<pre>{_e(config)}</pre>
"""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{_e(title)}</title><style>{_CSS}</style>{plotly_js}</head>"
            f"<body>{body}</body></html>\n")


def report_pdf(page: str, out: Path, *, browser: str | None = None,
               timeout: float = 120.0) -> Path | None:
    """Print the HTML ``page`` to the PDF ``out`` through headless Chromium; None when no
    Chromium is installed (:func:`dpcore.figures.files.chromium_path`).

    Raises
    ------
    RuntimeError
        When Chromium ran but wrote no PDF.
    """
    browser = browser or chromium_path()
    if browser is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "report.html"
        source.write_text(page, encoding="utf-8")
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-pdf-header-footer", "--virtual-time-budget=5000",
             f"--print-to-pdf={out}", source.as_uri()],
            check=False, capture_output=True, timeout=timeout)
    if not out.exists() or out.stat().st_size == 0:
        raise RuntimeError(f"Chromium ({browser}) wrote no PDF to {out}.")
    return out
