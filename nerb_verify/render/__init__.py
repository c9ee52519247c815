"""Our own rendering of a verified bundle: a Markdown summary and four SVG figures.

Everything rendered comes from the verifier's own recomputation (``ctx.figures`` and ``collector.decisions``), never
from the bundle's stored doubles or its prose. Output is deterministic byte for byte: no clock, no tool version, no
host names, exact rational arithmetic with round-half-even at the printed precision.

* :mod:`nerb_verify.render.numbers`: exact formatting of counts, percentages and decimals;
* :mod:`nerb_verify.render.model`: the figures the render needs, gathered from a verification result;
* :mod:`nerb_verify.render.markdown` and :mod:`nerb_verify.render.svg`: the two output formats;
* :mod:`nerb_verify.render.output`: render everything into a dict of files and write them safely.
"""
