"""Rating in a spreadsheet (seed A.2 ``collection/spreadsheet_template``): the template, reading it back."""
