#!/usr/bin/env python3
"""Home Assistant 2024.3.3 with the two shims ha-bambulab v2.0.46 needs here.

    python bambu_shim.py -c CONFIG_DIR --skip-pip     (HA's own arguments)

Installs the shims, then runs HA's own entry point (homeassistant/__main__.py
`main`) in this process. The vendored integration (Tests/ThirdParty/ha-bambulab)
is never edited: each shim changes a module right after Python imported it.

1. `FanEntityFeature.TURN_ON` / `TURN_OFF`. ha-bambulab's fan.py (v2.0.46,
   `BambuLabFan._attr_supported_features`) uses them; they came with HA 2024.8
   (homeassistant/components/fan/__init__.py: TURN_OFF = 16, TURN_ON = 32).
   HA 2024.3 has SET_SPEED, OSCILLATE, DIRECTION, PRESET_MODE only, so the fan
   platform failed to import (AttributeError) and ha-bambulab's fans were missing.
   Shim: `FanEntityFeature` is replaced by the same IntFlag with those two
   members added (2024.3's fan code only tests SET_SPEED etc., so it behaves
   as before).

2. pybambu's online error-text lookup. pybambu/utils.py `get_HMS_error_text` and
   `get_print_error_text` ask Bambu's web service first
   (`requests.get("https://e.bambulab.com/query.php?...", timeout=5)`) and fall
   back to the static tables (const_hms_errors.py, const_print_errors.py). With
   no internet, `requests.get` raises, and the bare `except:` logs
   `response.text` with `response` unbound: UnboundLocalError escapes
   HMSList/PrintError.print_update, and bambu_client.py `on_message` drops the
   rest of that MQTT report ("An exception occurred processing a message").
   The tests may contact nothing but 127.0.0.1. Shim: in pybambu.utils only,
   `requests` is replaced by a stand-in whose `get` answers at once with
   `{"result": -1}` (no result), so pybambu takes its own fallback: the texts
   are those of the static tables shipped in v2.0.46. Every lookup is counted
   in the log as "bambu_shim: offline error-text lookup <code>".
"""
import enum
import importlib.abc
import importlib.machinery
import logging
import sys

LOGGER = logging.getLogger("bambu_shim")


def shim_fan(module):
    old = module.FanEntityFeature
    if hasattr(old, "TURN_ON"):
        return
    members = {member.name: member.value for member in old}
    members.update(TURN_OFF=16, TURN_ON=32)  # HA 2024.8's values
    new = enum.IntFlag("FanEntityFeature", members)
    new.__module__ = old.__module__
    module.FanEntityFeature = new


class OfflineResponse:
    status_code = 200
    text = '{"result": -1}'

    def json(self):
        return {"result": -1}


class OfflineRequests:
    """What pybambu.utils sees as `requests`: no web service, an immediate "no result"."""

    @staticmethod
    def get(url, *args, **kwargs):
        LOGGER.warning("bambu_shim: offline error-text lookup %s", url.rsplit("e=", 1)[-1])
        return OfflineResponse()


def shim_pybambu_utils(module):
    module.requests = OfflineRequests()


SHIMS = {
    "homeassistant.components.fan": shim_fan,
    "custom_components.bambu_lab.pybambu.utils": shim_pybambu_utils,
}


class AfterImport(importlib.abc.MetaPathFinder):
    """Runs a shim on a module right after it executed (before anything imports names from it)."""

    def find_spec(self, name, path, target=None):
        shim = SHIMS.get(name)
        if shim is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None:
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            shim(module)

        spec.loader.exec_module = exec_module
        return spec


def install():
    for name, shim in SHIMS.items():
        if name in sys.modules:
            shim(sys.modules[name])
    sys.meta_path.insert(0, AfterImport())


if __name__ == "__main__":
    install()
    from homeassistant.__main__ import main

    sys.argv[0] = "hass"
    sys.exit(main())
