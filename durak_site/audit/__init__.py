"""The staff audit trail: who did what to whom, when, and why.

Every staff action that touches money, a block, a payout approval or an account closure calls
``durak_site.audit.services.record_staff_action`` inside the same database transaction as the
action itself, so the action and its record commit or roll back together. Records are
append-only: the admin shows and exports them, and the database refuses to change or delete
them.
"""
