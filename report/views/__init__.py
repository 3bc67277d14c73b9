"""The views: tables, charts, the answer, the page, the terminal and user reports, each a function of the figure records."""
