"""Views: display tables, Altair chart specs and report sections built from engine results.

One module per engine area (:mod:`.identify`, :mod:`.sequential`, :mod:`.auditing`,
:mod:`.measure`), each importing the result types it draws; :mod:`.charts` holds the Altair
builders they share. Views never compute a statistic and never import Streamlit, so a number, a
table and a chart look the same on a page, in the command line's report and in a download.
"""
