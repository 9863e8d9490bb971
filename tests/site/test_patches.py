"""Every patch of another package's internals is listed with the upstream code it relies on, and
the installed code is still the code each was checked against."""

from __future__ import annotations

import importlib

from celery.apps import worker

import durak_site.celery  # noqa: F401 - replaces celery's safe_say in this process
from durak_site import patches


def test_the_upstream_code_each_patch_relies_on_is_unchanged():
    changed = patches.changes()
    assert not changed, "\n".join(changed)


def test_a_changed_upstream_source_names_the_patch_to_re_check(monkeypatch):
    dispatch = patches.Upstream(
        "channels.consumer.AsyncConsumer.dispatch", "channels", "4.3.1", "0" * 16
    )
    monkeypatch.setattr(patches, "PATCHES", (patches.Patch("games.consumers", (dispatch,)),))
    [message] = patches.changes()
    assert message.startswith("games.consumers relies on channels.consumer.AsyncConsumer.dispatch")
    assert "(channels 4.3.1 then, 4.3.2 installed): re-check the patch" in message
    assert patches.fingerprint(dispatch.name) in message


def test_every_listed_module_and_upstream_definition_exists():
    for patch in patches.PATCHES:
        importlib.import_module(patch.module)
        for upstream in patch.relies_on:
            assert patches.upstream_source(upstream.name).startswith(("def ", "class ", "async "))


def test_the_fingerprint_is_of_the_upstream_code_even_where_a_patch_replaced_it():
    assert worker.safe_say.__module__ == "durak_site.celery"
    assert patches.upstream_source("celery.apps.worker.safe_say").startswith("def safe_say(")
