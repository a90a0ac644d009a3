"""Plotly figures: :mod:`ui.figures.common` (one palette and layout for every page) and a module
per page."""
