"""The numbers behind every table, as DataFrames: results (``Results``, the finished tasks
read once and the one loop over their experiments), aggregate (runs.csv read and
summarised per cell, the config's order), stats (the per-fold and across-dataset tests),
significance and bayes (``obliq stats`` and ``obliq stats --bayes`` per experiment).
report/ renders them; nothing here formats text for a table or imports report/."""
