"""Scaled mode (``KAEL_DATABASE_URL=postgresql+psycopg://…``): submissions in Postgres, grading
by any number of ``python -m server.worker`` processes through procrastinate's job queue (in the
same database), rate limits in the shared store. See README.md, "Scaled mode"."""
