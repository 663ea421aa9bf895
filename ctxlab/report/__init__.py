"""Sharing results: a self-contained HTML report and executed notebooks.

    from ctxlab.report import write_report, run_notebooks
    write_report("ctxlab.duckdb", "reports/report.html")
"""

from ctxlab.report.html_report import write_report
from ctxlab.report.notebooks import run_notebooks

__all__ = ["run_notebooks", "write_report"]
