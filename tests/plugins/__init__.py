"""Registrations a test adds in one file each (a metric, a protocol), as a user would."""
