"""Building blocks of the staff pages (the Django admin).

``admin_site`` (the admin site, its Russian titles and the reports among the models),
``readonly_admin`` (records staff may look at but never edit) and ``exports`` (XLSX and CSV
files that open right).
"""
