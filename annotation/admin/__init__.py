"""Django admin of the annotation app: every column and label through gettext, every time in the site's zone.

Columns on foreign keys and times are display methods: the models' ``__str__`` print times with
``strftime`` (UTC) and some foreign keys have no verbose name, so listing them as plain fields would show
English labels and UTC times. Data texts are escaped by the admin (nothing here is marked safe except
``format_html_join`` output, which escapes its pieces). History (edits, adjudications, comments, queue
assignments, training answers) is read only.
"""

from annotation.admin import audits, data, flags, imports, ratings, reports, review  # noqa: F401  (each module registers its models)
