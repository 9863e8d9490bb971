"""Database-enforced ledger invariants, so no code path (or hand-written SQL) can break them."""

from django.db import migrations

GUARDS = r"""
CREATE FUNCTION wallet_check_transaction_balanced() RETURNS trigger AS $$
DECLARE
    total numeric;
    entry_count integer;
BEGIN
    SELECT coalesce(sum(amount), 0), count(*) INTO total, entry_count
      FROM wallet_entry WHERE transaction_id = NEW.transaction_id;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % is unbalanced: entries sum to %',
            NEW.transaction_id, total USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF entry_count < 2 THEN
        RAISE EXCEPTION 'ledger transaction % needs at least two entries', NEW.transaction_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wallet_entry_balanced
    AFTER INSERT ON wallet_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_check_transaction_balanced();

CREATE FUNCTION wallet_check_transaction_has_entries() RETURNS trigger AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM wallet_entry WHERE transaction_id = NEW.id) THEN
        RAISE EXCEPTION 'ledger transaction % has no entries', NEW.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wallet_transaction_has_entries
    AFTER INSERT ON wallet_ledgertransaction
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_check_transaction_has_entries();

CREATE FUNCTION wallet_forbid_ledger_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ledger rows in % are immutable (% refused); post a correcting transaction',
        TG_TABLE_NAME, TG_OP USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wallet_ledgertransaction_immutable
    BEFORE UPDATE OR DELETE ON wallet_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION wallet_forbid_ledger_change();

CREATE TRIGGER wallet_entry_immutable
    BEFORE UPDATE OR DELETE ON wallet_entry
    FOR EACH ROW EXECUTE FUNCTION wallet_forbid_ledger_change();

CREATE TRIGGER wallet_account_not_deleted
    BEFORE DELETE ON wallet_account
    FOR EACH ROW EXECUTE FUNCTION wallet_forbid_ledger_change();

CREATE FUNCTION wallet_only_balance_changes() RETURNS trigger AS $$
BEGIN
    IF (NEW.id, NEW.kind, NEW.currency, NEW.user_id, NEW.table_id, NEW.created_at)
       IS DISTINCT FROM
       (OLD.id, OLD.kind, OLD.currency, OLD.user_id, OLD.table_id, OLD.created_at) THEN
        RAISE EXCEPTION 'only the balance of account % may change', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wallet_account_only_balance_changes
    BEFORE UPDATE ON wallet_account
    FOR EACH ROW EXECUTE FUNCTION wallet_only_balance_changes();
"""

DROP_GUARDS = r"""
DROP TRIGGER wallet_account_only_balance_changes ON wallet_account;
DROP FUNCTION wallet_only_balance_changes();
DROP TRIGGER wallet_account_not_deleted ON wallet_account;
DROP TRIGGER wallet_entry_immutable ON wallet_entry;
DROP TRIGGER wallet_ledgertransaction_immutable ON wallet_ledgertransaction;
DROP FUNCTION wallet_forbid_ledger_change();
DROP TRIGGER wallet_transaction_has_entries ON wallet_ledgertransaction;
DROP FUNCTION wallet_check_transaction_has_entries();
DROP TRIGGER wallet_entry_balanced ON wallet_entry;
DROP FUNCTION wallet_check_transaction_balanced();
"""


class Migration(migrations.Migration):
    dependencies = [("wallet", "0001_initial")]

    operations = [migrations.RunSQL(GUARDS, DROP_GUARDS)]
