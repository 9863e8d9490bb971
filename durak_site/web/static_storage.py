"""The static files' storage in production: whitenoise's compressed manifest storage, which also
rewrites the imports inside the ES modules to the imported files' hashed names. So every file a
page loads, its modules' imports too, has its content's hash in its name and can be cached for
good (docs/deployment.md, "Static files")."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedModulesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
