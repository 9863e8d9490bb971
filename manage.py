#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    import django
    from django.core.management import execute_from_command_line

    django.setup()
    from durak_site.ops.readiness import refuse_if_not_ready

    refuse_if_not_ready(sys.argv)
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
