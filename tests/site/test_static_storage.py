"""In production every file under /static/ is cached for good, so a page's modules and everything
they import must be loaded by their content-hashed names (durak_site.web.static_storage)."""

import json
import posixpath
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

pytestmark = pytest.mark.slow

PRODUCTION_STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "durak_site.web.static_storage.HashedModulesStorage"},
}
# A module's relative specifiers: `import … from "./x.js"`, `export … from`, `import "./x.js"`
# and `import("./x.js")`.
RELATIVE_SPECIFIER = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""")


def test_every_module_import_names_the_hashed_file_it_loads(tmp_path: Path) -> None:
    with override_settings(STATIC_ROOT=tmp_path, STORAGES=PRODUCTION_STORAGES):
        call_command("collectstatic", "--noinput", "-v", "0")
    hashed_names = json.loads((tmp_path / "staticfiles.json").read_text())["paths"]
    final_names = set(hashed_names.values())

    imports_checked = 0
    for name, hashed in hashed_names.items():
        if not (name.startswith("js/") and name.endswith(".js")):
            continue
        for specifier in RELATIVE_SPECIFIER.findall((tmp_path / hashed).read_text()):
            target = posixpath.normpath(posixpath.join(posixpath.dirname(hashed), specifier))
            assert target in final_names, f"{hashed} imports {specifier}, not a hashed name"
            assert (tmp_path / target).is_file()
            imports_checked += 1
    assert imports_checked > 20
    # A module's name carries the hash of what it imports: table.js's names i18n.js's.
    table = (tmp_path / hashed_names["js/table.js"]).read_text()
    assert f'from "./{posixpath.basename(hashed_names["js/i18n.js"])}";' in table
