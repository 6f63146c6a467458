#!/usr/bin/env python3
"""Lints a Home Assistant add-on directory as frenck/action-addon-linter does.

The linter (src/lint.py) validates config.yaml against its JSON schema with a
Draft 7 validator extended so that an option set to its schema default is an
error ("'boot' should be removed, it uses a default value"), then applies a
few rules of its own; the ones that concern this add-on are checked here too.
The schema is the linter's, kept in Fixtures/addon-linter.

usage: addon_lint.py ADDON_DIR SCHEMA_FILE   (prints one line per problem; exit 1 if any)
"""
import sys
from pathlib import Path

import yaml
from jsonschema import Draft7Validator, ValidationError, validators
import json


def rejecting_defaults(base):
    check_properties = base.VALIDATORS["properties"]

    def properties(validator, props, instance, schema):
        for name, subschema in props.items():
            if isinstance(instance, dict) and "default" in subschema and instance.get(name) == subschema["default"]:
                yield ValidationError(f"'{name}' should be removed, it uses a default value")
        yield from check_properties(validator, props, instance, schema)

    return validators.extend(base, {"properties": properties})


def main():
    addon, schema_path = Path(sys.argv[1]), Path(sys.argv[2])
    config = yaml.safe_load((addon / "config.yaml").read_text())
    schema = json.loads(schema_path.read_text())
    problems = [e.message for e in rejecting_defaults(Draft7Validator)(schema).iter_errors(config)]
    if config.get("ingress") and config.get("webui"):
        problems.append("'webui' should be removed, Ingress is enabled.")
    if config.get("ingress") and not config.get("host_network") and config.get("ingress_port", 8099) == 0:
        problems.append("'ingress_port' must not be 0 off the host network")
    for arch in config.get("arch", []):
        if arch in ("armhf", "armv7", "i386"):
            problems.append(f"architecture '{arch}' is no longer supported")
    if config.get("watchdog"):
        problems.append("'watchdog' is obsolete; use a Docker HEALTHCHECK")
    for key in ("codenotary", "auto_uart"):
        if key in config:
            problems.append(f"'{key}' is deprecated")
    # What the Supervisor reads beside config.yaml (translations, store presentation).
    for name in ("DOCS.md", "CHANGELOG.md", "README.md", "icon.png", "logo.png", "translations/en.yaml"):
        if not (addon / name).is_file():
            problems.append(f"{name} is missing")
    translations = yaml.safe_load((addon / "translations/en.yaml").read_text()) if (addon / "translations/en.yaml").is_file() else {}
    for option in config.get("schema", {}):
        if option not in (translations.get("configuration") or {}):
            problems.append(f"option '{option}' has no name in translations/en.yaml")
    for problem in sorted(problems):
        print(problem)
    sys.exit(1 if problems else 0)


main()
