"""The database checks the cached balances, so hand-written SQL cannot move money.

At commit, each new entry's ``balance_after`` must be the account's previous entry's plus its
amount, and each inserted or re-balanced account's ``balance`` must equal its newest entry's
``balance_after``. An account row may change in nothing but its balance, whatever columns it
gains later.
"""

from django.db import migrations

BALANCE_GUARDS = r"""
CREATE FUNCTION wallet_check_entry_chain() RETURNS trigger AS $$
DECLARE
    previous bigint;
BEGIN
    SELECT balance_after INTO previous FROM wallet_entry
     WHERE account_id = NEW.account_id AND id < NEW.id ORDER BY id DESC LIMIT 1;
    IF NEW.balance_after <> coalesce(previous, 0) + NEW.amount THEN
        RAISE EXCEPTION 'entry % of account %: balance after % is not % plus %',
            NEW.id, NEW.account_id, NEW.balance_after, coalesce(previous, 0), NEW.amount
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wallet_entry_chained
    AFTER INSERT ON wallet_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_check_entry_chain();

CREATE FUNCTION wallet_check_account_balance() RETURNS trigger AS $$
DECLARE
    checked bigint;
    cached bigint;
    newest bigint;
BEGIN
    IF TG_TABLE_NAME = 'wallet_entry' THEN
        checked := NEW.account_id;
    ELSE
        checked := NEW.id;
    END IF;
    SELECT balance INTO cached FROM wallet_account WHERE id = checked;
    SELECT balance_after INTO newest FROM wallet_entry
     WHERE account_id = checked ORDER BY id DESC LIMIT 1;
    IF cached <> coalesce(newest, 0) THEN
        RAISE EXCEPTION 'account % holds % but its entries end at %',
            checked, cached, coalesce(newest, 0)
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wallet_account_balance_matches_entries
    AFTER INSERT OR UPDATE OF balance ON wallet_account
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_check_account_balance();

CREATE CONSTRAINT TRIGGER wallet_entry_moves_account_balance
    AFTER INSERT ON wallet_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_check_account_balance();

CREATE OR REPLACE FUNCTION wallet_only_balance_changes() RETURNS trigger AS $$
DECLARE
    unchanged wallet_account := NEW;
BEGIN
    unchanged.balance := OLD.balance;
    IF unchanged IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'only the balance of account % may change', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""

DROP_BALANCE_GUARDS = r"""
CREATE OR REPLACE FUNCTION wallet_only_balance_changes() RETURNS trigger AS $$
BEGIN
    IF (NEW.id, NEW.kind, NEW.currency, NEW.user_id, NEW.table_id, NEW.provider, NEW.created_at)
       IS DISTINCT FROM
       (OLD.id, OLD.kind, OLD.currency, OLD.user_id, OLD.table_id, OLD.provider, OLD.created_at)
    THEN
        RAISE EXCEPTION 'only the balance of account % may change', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

DROP TRIGGER wallet_entry_moves_account_balance ON wallet_entry;
DROP TRIGGER wallet_account_balance_matches_entries ON wallet_account;
DROP FUNCTION wallet_check_account_balance();
DROP TRIGGER wallet_entry_chained ON wallet_entry;
DROP FUNCTION wallet_check_entry_chain();
"""


class Migration(migrations.Migration):
    dependencies = [("wallet", "0006_player_limits")]

    operations = [migrations.RunSQL(BALANCE_GUARDS, DROP_BALANCE_GUARDS)]
