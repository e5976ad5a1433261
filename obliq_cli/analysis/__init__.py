"""The numbers behind every table, as DataFrames: aggregate (runs.csv read and summarised
per cell, the config's order) and stats (the per-fold and across-dataset tests). report/
renders them; nothing here formats text for a table or imports report/."""
