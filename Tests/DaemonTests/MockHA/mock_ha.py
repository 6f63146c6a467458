#!/usr/bin/env python3
"""A mock Home Assistant WebSocket API for PrintBridge's daemon tests.

    mock_ha.py --events FILE [--token T] [--reject-token] [--drop-after N]
               [--skip-while-down] [--interval S] [--stats FILE]

Speaks HA's protocol on ws://127.0.0.1:<port>/api/websocket (prints
"PORT <n>"): auth_required -> auth -> auth_ok / auth_invalid, answers
supported_features, config/entity_registry/list_for_display, get_states,
subscribe_events (state_changed, the registries' change events, others),
subscribe_entities, unsubscribe_events and ping, as HA 2024.3 does
(websocket_api/commands.py; compressed_states.py writes the compressed state
format). The recorded-event FILE provides HA's registry (its first
list_for_display answer), the first get_states snapshot and the state_changed
events (of every session in it; a line may be a coalesced array), which are
streamed to the subscriber one per frame every S seconds: a state_changed
subscriber gets each as it is (re-numbered with its subscription id), a
subscribe_entities subscriber only those of the entities it asked for, as
HA's diffs ("a", "c" with "+"/"-", "r"; an empty entity_ids list is every
entity, as HA reads it). N below counts the events streamed to a client.

--drop-after N      close the connection after N events; on the next
                    connection the stream continues where it stopped
--skip-while-down   the events HA would have sent while the agent was
                    disconnected are applied to HA's states but not sent, so
                    the next get_states shows where the printer got to
--big-snapshot MB   pad get_states with household entities to about MB megabytes,
                    and the registry (list_for_display) with theirs to as many
--fragment          send every message as several WebSocket fragments
--coalesce          send events three to a frame, as a JSON array (HA's
                    coalesce_messages), when the client asked for it
--stall-pongs       never answer pings
--timeline S        HA goes on whoever is connected: the file's events are
                    applied over S seconds of wall time from the first
                    subscription (the agent was watching when the print began)
                    (spaced as their time_fired), sent to whichever clients
                    are subscribed at that moment; get_states shows where the
                    printer got to. stats: timeline_done
--batch-replies     as HA's writer does under load when the client asked for
                    coalesce_messages (websocket_api/http.py, _writer: whatever
                    is queued goes out as one JSON array): every pong and every
                    result after the subscription leaves in one frame behind a
                    household state_changed event, [event, reply]
--huge-event MB     right after the subscription, one change of about MB
                    megabytes (a printer entity, its state unchanged, with a
                    huge attribute of many small entries: a state_changed
                    event, or a "c" diff for subscribe_entities), sent as
                    one frame as HA's writer sends every message
                    (websocket_api/http.py, _writer: send_bytes_text)
--rename OLD=NEW    rename entity ids (substring) in the recording, e.g. to
                    localised ids; repeatable
--registry FILE     answer config/entity_registry/list_for_display with the
                    entities in FILE (a JSON list of {ei, di, pl, tk}) instead
                    of the recording's
--unknown-command TYPE
                    answer TYPE (e.g. subscribe_entities) with unknown_command,
                    as an HA older than it does; repeatable
--added-later       the recording's registered entities are not in HA until
                    the agent has read the registry; then their registry
                    entries are created (an entity_registry_updated "create"
                    each) and their states written (stats: printers_added)
--rename-later OLD=NEW:N
                    once N events were streamed, the entity OLD is renamed NEW
                    as HA does (registry "update" with old_entity_id; the state
                    removed under OLD, added under NEW); the stream goes on
                    once the client watches NEW (stats: renamed)
--remove-later TEXT:N
                    once N events were streamed, every registered entity whose
                    id contains TEXT is removed (registry "remove", state
                    removed); its later events are dropped; the stream goes on
                    once the client no longer watches them (stats: removed)
--without TEXT      entities whose id contains TEXT are not in this HA (not in
                    its registry, states or events); repeatable
--household N       N household state changes a second (sensor.household_*),
                    sent only to state_changed subscribers
--tls DIR           serve wss:// with a throwaway certificate for 127.0.0.1,
                    writing its CA to DIR/ha-ca.pem
--bench-latency N   instead of the file's events: N pause/resume pairs of one
                    printer, 5 ms apart, each pause after its stage (paused_user), logging "monotonic-seconds P<seq>" per
                    pause to --bench-log (the alert body names the printer P<seq>)
--bench-load S      instead: S seconds of 2,000 household events/s plus two
                    printers updating every second
--drop-at-end       close the connection once the whole recording has been sent
--hold-after ENTITY=STATE:FILE
                    once the event that sets ENTITY to STATE has been sent,
                    send nothing more until FILE exists (the test acts on the
                    printer in that state first); repeatable, each once
--hold-reconnects FILE
                    after a drop, refuse WebSocket handshakes (HTTP 503, an HA
                    still down) until FILE exists (the test says HA is back)
--refuse-services MESSAGE
                    answer call_service (recorded in stats' service_calls) with
                    HA's home_assistant_error and MESSAGE instead of success
--supervisor-options FILE
                    also be the Supervisor an add-on talks to: answer
                    GET /addons/self/options/config with the add-on options
                    in FILE, as {"result":"ok","data":…} for the Bearer token
                    (401 otherwise; supervisor/api/apps.py, options_config;
                    bashio's api.supervisor reads .data), and HA's WebSocket
                    API on any path (the Supervisor proxies /core/websocket)
--supervisor-network FILE
                    as the Supervisor, answer GET /network/info with the data in
                    FILE (supervisor/api/network.py, APINetwork.info: interfaces
                    with primary, connected, ipv4.address as "ADDR/PREFIX"), or,
                    for FILE "forbidden", 403 "403: Forbidden" as the Supervisor
                    refuses an add-on without hassio_api
                    (supervisor/api/middleware/security.py)
--supervisor-addon-info FILE
                    as the Supervisor, answer GET /addons/self/info with the data
                    in FILE (supervisor/api/apps.py, info_data: "network" maps
                    "3000/tcp" to the host port, null when not published)
--camera ENTITY=MODE
                    also serve HA 2024.3's camera and image proxies for ENTITY
                    (camera.* under GET /api/camera_proxy/ENTITY, image.* under
                    GET /api/image_proxy/ENTITY; camera/__init__.py CameraView,
                    CameraImageView; image/__init__.py ImageView); repeatable.
                    ENTITY joins get_states (camera.*: "idle", image.*: an ISO
                    timestamp; or the recording's state, kept) with
                    access_token "x" and entity_picture
                    /api/{camera,image}_proxy/ENTITY?token=x (also in the
                    recording's state_changed events of it). As HA: an entity
                    not given (or of the other proxy's domain) is 404 "404: Not
                    Found" before any auth check; then authorised is
                    "Authorization: Bearer <--token>" (not with --reject-token)
                    or ?token=x; otherwise 401 "401: Unauthorized" when an
                    Authorization header was sent, 403 "403: Forbidden" when
                    none was. MODE, for an authorised request:
                      jpeg      200 image/jpeg, a small valid JPEG (32x24)
                      png       200 image/png, a small valid PNG (32x24)
                      slow:S    the jpeg after S seconds; S >= 10 is HA's
                                timeout (CAMERA_IMAGE_TIMEOUT, IMAGE_TIMEOUT):
                                500 after 10 s
                      status:N  HTTP N with aiohttp's text body "N: Reason"
                                (500 is HA's answer to an empty, failing or
                                slow camera, 503 to a camera that is off)
                      huge:MB   200 image/jpeg, MB megabytes (10^6) with
                                Content-Length: FF D8 FF E0, then zeros
                      endless   200 image/jpeg, Transfer-Encoding: chunked, the
                                JPEG's first bytes then 64 KB chunks as fast
                                as the client reads, until it goes away
                      html      200 text/html, a login page
                      fake      200 image/jpeg, the bytes "not a picture"
                    Every request under the proxies is recorded in stats'
                    camera_requests as {"path": (with query), "authorized"};
                    endless_streams_ended counts endless responses whose
                    client went away. A request with Upgrade: websocket is
                    never answered here. With --camera the WebSocket opening
                    handshake has no time limit (websockets' open_timeout),
                    so slow, huge and endless bodies are not cut off
Stats (connections, auth attempts, events sent) go to --stats as JSON,
written whole (never half a file); besides the counters:
  recording_done    1 once the recording's last event has been sent (stream
                    or --timeline), in the same write as the final counts
  by_connection     per connection ("1", "2", … in order): "events", the
                    event messages sent on it (state changes, household ones
                    too, a subscription's first event, registry events),
                    "withheld", state changes HA made that it did not send (the
                    client did not ask for them), and "subscribed", 1 once its
                    subscription was answered; a test compares them with what
                    the agent received
  subscriptions     every subscribe_entities: {"connection", "entity_ids"}
  household_changes --household's changes made
"""
import argparse
import asyncio
import base64
import email.utils
import http
import json
import os
import struct
import sys
import threading
import time
import urllib.parse
import zlib
from datetime import datetime

import websockets

import compressed_states

# A 32x24 baseline JPEG (made once with Pillow; the test venv has none).
TINY_JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcp"
    "LDAxNDQ0Hyc5PTgyPC4zNDL/2wBDAQkJCQwLDBgNDRgyIRwhMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIy"
    "MjIyMjIyMjIyMjIyMjL/wAARCAAYACADASIAAhEBAxEB/8QAFwABAQEBAAAAAAAAAAAAAAAABQAEB//EABgQAAIDAAAAAAAA"
    "AAAAAAAAAAADBSIx/8QAFwEBAQEBAAAAAAAAAAAAAAAABQYEB//EABsRAAIDAAMAAAAAAAAAAAAAAAADAgUhBDFh/9oADAMB"
    "AAIRAxEAPwDlaI3KiaI3KjaI3KiiI3KjTeb6ZK+x60DRG5UTRG5UcRG5UTRG5UMbzfS5r7HrTIiNyooiNypEFNbI4pXvnmia"
    "I3KiaI3KkQY5si5r3zzT/9k="
)
CAMERA_MODES = ("jpeg", "png", "slow", "status", "huge", "endless", "html", "fake")


def tiny_png():
    """A 32x24 RGB PNG: signature, IHDR, one IDAT, IEND."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + bytes(v for x in range(32) for v in (x * 8, y * 10, 128)) for y in range(24))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 32, 24, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


TINY_PNG = tiny_png()


class Client:
    """One connection after auth_ok: what it subscribed to."""

    def __init__(self, ws, number):
        self.ws = ws
        self.number = number
        self.legacy_sub = None  # subscribe_events state_changed
        self.entities_sub = None  # subscribe_entities
        self.entity_ids = None  # its entity_ids (empty: every entity, as HA reads it)
        self.registry_subs = {}  # event type -> subscription id
        self.streamer = None

    @property
    def subscribed(self):
        return self.legacy_sub is not None or self.entities_sub is not None

    def render(self, event):
        """The frame HA sends this client for a state_changed event, or None
        (commands.py: _forward_events_check_permissions, _forward_entity_changes)."""
        if self.legacy_sub is not None:
            return json.dumps({"id": self.legacy_sub, "type": "event", "event": event}, separators=(",", ":"))
        data = event["data"]
        if self.entities_sub is None or (self.entity_ids and data["entity_id"] not in self.entity_ids):
            return None
        return compressed_states.diff_message(self.entities_sub, data["entity_id"], data.get("old_state"),
                                              data.get("new_state"))


class MockHA:
    def __init__(self, args):
        self.args = args
        self.states = {}
        self.events = []
        self.registry = None
        with open(args.events) as f:
            for line in f:
                for rename in args.rename:
                    old, new = rename.split("=", 1)
                    line = line.replace(old, new)
                line = line.strip()
                if not line:
                    continue
                # A line is one message or, as HA's writer coalesces them, a JSON array of
                # messages. A recording across an HA restart holds a second session (auth,
                # registry, get_states): the first snapshot is HA's state here, and the state
                # changes of every session are the stream.
                value = json.loads(line)
                for message in value if isinstance(value, list) else [value]:
                    result = message.get("result") if message.get("type") == "result" else None
                    if isinstance(result, dict) and isinstance(result.get("entities"), list) and self.registry is None:
                        # The recording's registry (list_for_display) is this HA's.
                        self.registry = result["entities"]
                    if isinstance(result, list):
                        if not self.states:
                            self.states = {s["entity_id"]: s for s in message["result"]}
                    elif message.get("type") == "event" and message["event"].get("event_type") == "state_changed":
                        self.events.append(message["event"])
        if args.registry:
            with open(args.registry) as f:
                self.registry = json.load(f)
        self.registry = self.registry or []
        for text in args.without:
            self.registry = [e for e in self.registry if text not in e["ei"]]
            self.states = {k: v for k, v in self.states.items() if text not in k}
            self.events = [e for e in self.events if text not in e["data"]["entity_id"]]
        if args.big_snapshot:
            filler = {"friendly_name": "Filler sensor", "unit_of_measurement": "W", "device_class": "power",
                      "state_class": "measurement", "note": "x" * 200}
            index = 0
            size = len(json.dumps(list(self.states.values())))
            while size < args.big_snapshot * 1_000_000:
                entity = f"sensor.filler_{index}_power"
                state = {"entity_id": entity, "state": str(index % 500), "attributes": filler,
                         "last_changed": "2026-11-20T09:00:00.000000+00:00",
                         "last_updated": "2026-11-20T09:00:00.000000+00:00",
                         "context": {"id": f"01JDFILLER{index:016d}", "parent_id": None, "user_id": None}}
                self.states[entity] = state
                size += len(json.dumps(state)) + 1
                index += 1
            # A house that big has a registry to match (list_for_display, the
            # biggest answer HA now sends the agent): as many MB of entries.
            size, index = len(compressed_states.dumps(self.registry)), 0
            while size < args.big_snapshot * 1_000_000:
                entry = {"ei": f"sensor.filler_{index}_power", "pl": "shelly", "lb": [], "di": f"{index:032x}",
                         "en": "Power", "tk": "power", "ec": 1, "dp": 1, "ai": "living_room_with_a_long_area_name"}
                self.registry.append(entry)
                size += len(compressed_states.dumps(entry)) + 1
                index += 1
        self.cameras = {}
        for spec in args.camera:
            entity, _, mode = spec.partition("=")
            kind, _, value = mode.partition(":")
            try:
                valid = kind in CAMERA_MODES and entity.startswith(("camera.", "image.")) \
                    and (float(value) >= 0 if kind in ("slow", "huge") else
                         200 <= int(value) <= 599 if kind == "status" else not value)
            except ValueError:
                valid = False
            if not valid:
                raise SystemExit(f"--camera {spec}: want camera.X or image.X = jpeg, png, slow:S, status:N, "
                                 "huge:MB, endless, html or fake")
            self.cameras[entity] = mode
            domain = entity.split(".")[0]
            picture = {"access_token": "x", "entity_picture": f"/api/{domain}_proxy/{entity}?token=x"}
            if entity in self.states:
                # The recording's entity (ha-bambulab's camera): its state and name, the mock's token.
                state = dict(self.states[entity])
                state["attributes"] = dict(state.get("attributes", {}), **picture)
            else:
                stamp = "2026-11-20T09:00:00.000000+00:00"
                name = entity.split(".", 1)[1].replace("_", " ").title()
                state = {"entity_id": entity, "state": "idle" if domain == "camera" else stamp,
                         "attributes": dict(friendly_name=name, **picture), "last_changed": stamp,
                         "last_reported": stamp, "last_updated": stamp,
                         "context": {"id": "01JDCAMERA0000000000000000", "parent_id": None, "user_id": None}}
            self.states[entity] = state
            # The recording's own changes of it carry the mock's token too.
            for event in self.events:
                if event["data"].get("entity_id") == entity:
                    event["data"] = dict(event["data"], **{
                        key: dict(value, attributes=dict(value.get("attributes", {}), **picture))
                        for key in ("old_state", "new_state") if (value := event["data"].get(key))})
        # --added-later: the recording's registered entities are not in this
        # HA until the agent is watching (they appear then, as a printer's
        # integration being set up).
        self.hidden = {}
        if args.added_later:
            hidden_ids = {entry["ei"] for entry in self.registry}
            self.hidden = {"registry": [e for e in self.registry if e["ei"] in hidden_ids],
                           "states": [self.states.pop(i) for i in sorted(hidden_ids) if i in self.states]}
            self.registry = [e for e in self.registry if e["ei"] not in hidden_ids]
        self.steps = []
        for spec in args.rename_later:
            change, _, position = spec.rpartition(":")
            old_id, _, new_id = change.partition("=")
            self.steps.append({"at": int(position), "rename": (old_id, new_id)})
        for spec in args.remove_later:
            match, _, position = spec.rpartition(":")
            self.steps.append({"at": int(position), "remove": match})
        self.position = 0
        self.clients = set()
        self.timeline_task = None
        self.coalesce = False
        self.stats = {"connections": 0, "auth_attempts": 0, "events_sent": 0, "drops": 0, "pings": 0,
                      "coalesce_requested": 0, "largest_message": 0, "by_connection": {}, "service_calls": [],
                      "subscriptions": [], "registry_requests": 0, "household_changes": 0}
        if self.cameras:
            self.stats["camera_requests"] = []
            self.stats["endless_streams_ended"] = 0
        self.write_stats()

    def write_stats(self):
        # Whole or not at all: a test reading while this writes must never
        # see a truncated file (it would read as no stats).
        if self.args.stats:
            with open(self.args.stats + ".tmp", "w") as f:
                json.dump(self.stats, f)
            os.replace(self.args.stats + ".tmp", self.args.stats)

    def apply(self, event):
        new_state = event["data"].get("new_state")
        if new_state is not None:
            self.states[event["data"]["entity_id"]] = new_state

    async def send(self, ws, text):
        self.stats["largest_message"] = max(self.stats["largest_message"], len(text))
        if self.args.fragment and len(text) > 8:
            step = max(1, len(text) // 4)
            await ws.send(text[i:i + step] for i in range(0, len(text), step))
        else:
            await ws.send(text)

    def household_event(self, client):
        """An event HA would have queued for this client: a household entity's
        change for a state_changed subscriber; for a subscribe_entities one
        (which gets no household change), a write of a watched printer entity
        that changed nothing but its last_updated (a "+lu" diff)."""
        if client.entities_sub is None:
            self.noise = getattr(self, "noise", 0) + 1
            event = self.event("sensor.hallway_temperature", str(20 + self.noise % 5),
                               {"unit_of_measurement": "°C", "friendly_name": "Hallway temperature"})
            return json.dumps({"id": client.legacy_sub, "type": "event", "event": event}, separators=(",", ":"))
        entity = next(e for e in sorted(client.entity_ids) if e in self.states)
        old = self.states[entity]
        stamp = datetime.now().astimezone().isoformat(timespec="microseconds")
        new = dict(old, last_updated=stamp, last_reported=stamp)
        self.states[entity] = new
        return compressed_states.diff_message(client.entities_sub, entity, old, new)

    def sent_events(self, number, count):
        """Counts event messages sent on connection `number`."""
        self.stats["by_connection"][str(number)]["events"] += count

    def withheld(self, client, count=1):
        """Counts state changes HA applied but did not send this client (it did not ask for them)."""
        self.stats["by_connection"][str(client.number)]["withheld"] += count

    async def reply(self, client, text):
        """A reply, batched behind a queued event when HA would batch it."""
        if self.args.batch_replies and self.coalesce and client.subscribed:
            self.stats["batched_replies"] = self.stats.get("batched_replies", 0) + 1
            self.stats["events_sent"] += 1
            self.sent_events(client.number, 1)
            self.write_stats()
            await self.send(client.ws, "[" + self.household_event(client) + "," + text + "]")
        else:
            await self.send(client.ws, text)

    async def deliver(self, client, event):
        """Sends one state_changed event as this client asked for it (or not
        at all); True when something was sent."""
        text = client.render(event)
        if text is None:
            self.withheld(client)
            return False
        try:
            await self.send(client.ws, text)
        except websockets.ConnectionClosed:
            self.clients.discard(client)
            return False
        self.sent_events(client.number, 1)
        return True

    async def broadcast(self, event):
        """A state change HA made: applied, then sent to whoever asked for it."""
        self.apply(event)
        for client in list(self.clients):
            if client.subscribed:
                await self.deliver(client, event)

    async def fire_registry_event(self, event_type, data):
        """entity_registry_updated / device_registry_updated to their subscribers
        (helpers/entity_registry.py; cached_event_message's layout)."""
        stamp = datetime.now().astimezone().isoformat(timespec="microseconds")
        event = {"event_type": event_type, "data": data, "origin": "LOCAL", "time_fired": stamp,
                 "context": {"id": "01JDREGISTRY00000000000000", "parent_id": None, "user_id": None}}
        for client in list(self.clients):
            subscription = client.registry_subs.get(event_type)
            if subscription is None:
                continue
            text = compressed_states.dumps({"type": "event", "event": event})[:-1] + f',"id":{subscription}}}'
            try:
                await self.send(client.ws, text)
                self.sent_events(client.number, 1)
            except websockets.ConnectionClosed:
                self.clients.discard(client)
        self.stats["registry_events"] = self.stats.get("registry_events", 0) + 1
        self.write_stats()

    def state_event(self, entity_id, old, new):
        stamp = datetime.now().astimezone().isoformat(timespec="microseconds")
        return {"event_type": "state_changed", "data": {"entity_id": entity_id, "old_state": old, "new_state": new},
                "origin": "LOCAL", "time_fired": stamp,
                "context": {"id": "01JDSTEP0000000000000000000", "parent_id": None, "user_id": None}}

    async def add_printers(self):
        """--added-later: the printer's integration is set up while the agent
        watches: its registry entries are created (an event each), then its
        entities' states written (old_state None: "a" to whoever watches them)."""
        await asyncio.sleep(0.5)
        for entry in self.hidden["registry"]:
            self.registry.append(entry)
            await self.fire_registry_event("entity_registry_updated", {"action": "create", "entity_id": entry["ei"]})
        for state in self.hidden["states"]:
            await self.broadcast(self.state_event(state["entity_id"], None, state))
        self.stats["printers_added"] = 1
        self.write_stats()

    async def registry_step(self, client):
        """--rename-later / --remove-later, once the stream reaches their
        position: done as HA does it, then the stream waits (up to 15 s) for
        this client to watch the new ids (the test says what then arrives)."""
        for step in self.steps:
            if step.get("done") or self.position < step["at"]:
                continue
            step["done"] = True
            if "rename" in step:
                # Entity registry update with a new entity id: the entity
                # platform removes the entity and adds it under its new id
                # (entity_platform.py, _async_registry_updated).
                old_id, new_id = step["rename"]
                for entry in self.registry:
                    if entry["ei"] == old_id:
                        entry["ei"] = new_id
                await self.fire_registry_event("entity_registry_updated", {
                    "action": "update", "entity_id": new_id, "changes": {"entity_id": old_id}, "old_entity_id": old_id})
                state = self.states.get(old_id)
                if state is not None:
                    await self.broadcast(self.state_event(old_id, state, None))
                    await self.broadcast(self.state_event(new_id, None, dict(state, entity_id=new_id)))
                for event in self.events[self.position:]:
                    if event["data"]["entity_id"] == old_id:
                        event["data"] = {"entity_id": new_id, **{
                            key: dict(value, entity_id=new_id) if value else value
                            for key, value in event["data"].items() if key != "entity_id"}}
                ready = lambda: client.entity_ids is not None and new_id in client.entity_ids
                self.stats["renamed"] = self.stats.get("renamed", 0) + 1
            else:
                gone = [e["ei"] for e in self.registry if step["remove"] in e["ei"]]
                self.registry = [e for e in self.registry if e["ei"] not in gone]
                for entity in gone:
                    await self.fire_registry_event("entity_registry_updated", {"action": "remove", "entity_id": entity})
                    if entity in self.states:
                        await self.broadcast(self.state_event(entity, self.states[entity], None))
                self.events[self.position:] = [e for e in self.events[self.position:]
                                               if e["data"]["entity_id"] not in gone]
                ready = lambda: client.entity_ids is not None and not (set(gone) & client.entity_ids)
                self.stats["removed"] = self.stats.get("removed", 0) + len(gone)
            self.write_stats()
            deadline = time.monotonic() + 15
            while not ready() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)

    async def household(self):
        """--household N: N household state changes a second inside HA, sent
        only to those who asked for them (a state_changed subscriber)."""
        index = 0
        while True:
            second = time.monotonic()
            for _ in range(int(self.args.household)):
                index += 1
                entity = f"sensor.household_{index % 100}_power"
                old = self.states.get(entity)
                stamp = datetime.now().astimezone().isoformat(timespec="microseconds")
                new = {"entity_id": entity, "state": str(index % 997), "attributes": {
                    "unit_of_measurement": "W", "device_class": "power", "friendly_name": f"Socket {index % 100} power"},
                    "last_changed": stamp, "last_reported": stamp, "last_updated": stamp,
                    "context": {"id": f"01JDHOUSE{index:017d}", "parent_id": None, "user_id": None}}
                await self.broadcast({"event_type": "state_changed", "origin": "LOCAL", "time_fired": stamp,
                                      "data": {"entity_id": entity, "old_state": old, "new_state": new},
                                      "context": new["context"]})
                self.stats["household_changes"] += 1
            self.write_stats()
            await asyncio.sleep(max(0, second + 1 - time.monotonic()))

    async def timeline(self):
        """Plays the recording on the wall clock, connected or not."""
        times = [datetime.fromisoformat(e["time_fired"]).timestamp() for e in self.events]
        first, last = times[0], times[-1]
        start = time.monotonic()
        for event, fired in zip(self.events, times):
            due = start + (fired - first) / max(last - first, 1e-9) * self.args.timeline
            await asyncio.sleep(max(0, due - time.monotonic()))
            # Stamped now, as HA stamps a change when it happens.
            stamp = datetime.now().astimezone().isoformat(timespec="microseconds")
            data = event["data"]
            new_state = dict(data["new_state"]) if data.get("new_state") else None
            old_state = self.states.get(data["entity_id"])
            if new_state is not None:
                new_state["last_updated"] = new_state["last_reported"] = stamp
                if old_state is None or old_state.get("state") != new_state.get("state"):
                    new_state["last_changed"] = stamp
                else:
                    new_state["last_changed"] = old_state.get("last_changed", stamp)
            event = dict(event, time_fired=stamp,
                         data=dict(data, old_state=old_state, new_state=new_state))
            self.stats["events_sent"] += 1
            await self.broadcast(event)
        self.stats["timeline_done"] = 1
        self.stats["recording_done"] = 1
        self.write_stats()

    async def handler(self, ws):
        self.stats["connections"] += 1
        number = self.stats["connections"]
        self.stats["by_connection"][str(number)] = {"events": 0, "subscribed": 0, "withheld": 0}
        self.write_stats()
        await ws.send(json.dumps({"type": "auth_required", "ha_version": "2026.11.2"}))
        auth = json.loads(await ws.recv())
        self.stats["auth_attempts"] += 1
        self.write_stats()
        if self.args.reject_token or auth.get("access_token") != self.args.token:
            await ws.send(json.dumps({"type": "auth_invalid", "message": "Invalid access token or password"}))
            await ws.close()
            return
        await ws.send(json.dumps({"type": "auth_ok", "ha_version": "2026.11.2"}))
        client = Client(ws, number)
        self.clients.add(client)
        try:
            async for text in ws:
                request = json.loads(text)
                rid, kind = request.get("id"), request.get("type")
                if kind in self.args.unknown_command:
                    # websocket_api/connection.py: a type it has no handler for.
                    await self.send(ws, json.dumps({"id": rid, "type": "result", "success": False, "error": {
                        "code": "unknown_command", "message": "Unknown command."}}))
                elif kind == "ping":
                    self.stats["pings"] += 1
                    self.write_stats()
                    if not self.args.stall_pongs:
                        await self.reply(client, json.dumps({"id": rid, "type": "pong"}))
                elif kind == "supported_features":
                    self.coalesce = bool(request.get("features", {}).get("coalesce_messages"))
                    self.stats["coalesce_requested"] += int(self.coalesce)
                    await self.send(ws, json.dumps({"id": rid, "type": "result", "success": True, "result": None}))
                elif kind == "get_states":
                    await self.send(ws, json.dumps({"id": rid, "type": "result", "success": True,
                                                    "result": list(self.states.values())}))
                elif kind == "config/entity_registry/list_for_display":
                    self.stats["registry_requests"] += 1
                    self.write_stats()
                    await self.reply(client, compressed_states.dumps({
                        "id": rid, "type": "result", "success": True,
                        "result": {"entity_categories": {"0": "config", "1": "diagnostic"}, "entities": self.registry}}))
                    if self.hidden and not self.stats.get("printers_added") and not getattr(self, "adding", False):
                        self.adding = True
                        asyncio.create_task(self.add_printers())
                elif kind == "subscribe_events" and request.get("event_type") in ("entity_registry_updated",
                                                                                  "device_registry_updated"):
                    client.registry_subs[request["event_type"]] = rid
                    await self.reply(client, json.dumps({"id": rid, "type": "result", "success": True, "result": None}))
                elif kind == "subscribe_events" and request.get("event_type") == "state_changed":
                    client.legacy_sub = rid
                    await self.send(ws, json.dumps({"id": rid, "type": "result", "success": True, "result": None}))
                    self.subscribed(client)
                elif kind == "subscribe_entities":
                    # commands.py, handle_subscribe_entities: the result, then every
                    # state asked for in one event (an empty list asks for all).
                    client.entities_sub = rid
                    client.entity_ids = set(request.get("entity_ids", []))
                    self.stats["subscriptions"].append({"connection": number, "entity_ids": sorted(client.entity_ids)})
                    await self.send(ws, json.dumps({"id": rid, "type": "result", "success": True, "result": None}))
                    states = [s for e, s in self.states.items() if not client.entity_ids or e in client.entity_ids]
                    await self.send(ws, compressed_states.initial_message(rid, states))
                    self.sent_events(number, 1)
                    self.subscribed(client)
                elif kind == "unsubscribe_events":
                    subscription = request.get("subscription")
                    if subscription == client.entities_sub:
                        client.entities_sub, client.entity_ids = None, None
                        found = True
                    else:
                        found = subscription in client.registry_subs.values()
                    self.stats["unsubscribes"] = self.stats.get("unsubscribes", 0) + int(found)
                    answer = {"id": rid, "type": "result", "success": True, "result": None} if found else {
                        "id": rid, "type": "result", "success": False,
                        "error": {"code": "not_found", "message": "Subscription not found."}}
                    await self.reply(client, json.dumps(answer))
                elif kind == "call_service":
                    # HA's answer to a call it ran: {"context": …} (websocket_api/commands.py,
                    # handle_call_service); --refuse-services answers as HA does when the
                    # service raises HomeAssistantError.
                    self.stats["service_calls"].append({"domain": request.get("domain"), "service": request.get("service"),
                                                        "target": request.get("target")})
                    self.write_stats()
                    if self.args.refuse_services:
                        answer = {"id": rid, "type": "result", "success": False,
                                  "error": {"code": "home_assistant_error", "message": self.args.refuse_services}}
                    else:
                        answer = {"id": rid, "type": "result", "success": True,
                                  "result": {"context": {"id": "01JDMOCK0000000000000000", "parent_id": None, "user_id": "u"}}}
                    await self.reply(client, json.dumps(answer))
                else:
                    await self.reply(client, json.dumps({"id": rid, "type": "result", "success": True, "result": None}))
        except websockets.ConnectionClosed:
            pass
        finally:
            if client.streamer:
                client.streamer.cancel()
            self.clients.discard(client)

    def subscribed(self, client):
        """The client's subscription is answered: the recording plays to it
        (once: a resubscription with other entities changes what it gets)."""
        self.stats["by_connection"][str(client.number)]["subscribed"] = 1
        self.write_stats()
        if self.args.household and getattr(self, "household_task", None) is None:
            self.household_task = asyncio.create_task(self.household())
        if self.args.timeline:
            if self.timeline_task is None:
                self.timeline_task = asyncio.create_task(self.timeline())
        elif client.streamer is None:
            client.streamer = asyncio.create_task(self.stream(client))

    def event(self, entity_id, state, attributes):
        old = self.states.get(entity_id)
        stamp = "2026-11-20T09:00:00.000000+00:00"
        new = {"entity_id": entity_id, "state": state, "attributes": attributes, "last_changed": stamp,
               "last_reported": stamp, "last_updated": stamp,
               "context": {"id": "01JDBENCH0000000000000000", "parent_id": None, "user_id": None}}
        self.states[entity_id] = new
        return {"event_type": "state_changed", "data": {"entity_id": entity_id, "old_state": old, "new_state": new},
                "origin": "LOCAL", "time_fired": stamp,
                "context": {"id": "01JDBENCH0000000000000000", "parent_id": None, "user_id": None}}

    def bench_event(self, entity_id, state, attributes):
        """A change stamped now (the diff format carries times: a fixed stamp
        would read as no change of last_updated)."""
        event = self.event(entity_id, state, attributes)
        stamp = datetime.now().astimezone().isoformat(timespec="microseconds")
        new = event["data"]["new_state"]
        new["last_changed"] = new["last_updated"] = new["last_reported"] = event["time_fired"] = stamp
        return event

    async def bench_latency(self, client):
        status = "sensor.x1c_00m09a350100123_print_status"
        log = open(self.args.bench_log, "w")
        await asyncio.sleep(0.5)
        # The print starts first, so every pause below is a running -> paused transition.
        await self.deliver(client, self.bench_event(status, "running", {"friendly_name": "X1C Print status"}))
        await asyncio.sleep(0.05)
        # Each pause has its reason: the stage (`paused_user`) comes first, as
        # in one ha-bambulab update pass, so the pause is told on its own frame
        # rather than held REASON_WINDOW for the stage (docs/BEHAVIOUR.md).
        stage = "sensor.x1c_00m09a350100123_current_stage"
        for seq in range(self.args.bench_latency):
            for stage_state, state in (("paused_user", "pause"), ("printing", "running")):
                await self.deliver(client, self.bench_event(stage, stage_state, {"friendly_name": "X1C Current stage"}))
                await asyncio.sleep(0.002)
                event = self.bench_event(status, state, {"friendly_name": f"P{seq} Print status"})
                if state == "pause":
                    log.write(f"{time.monotonic():.6f} P{seq}\n")
                await self.deliver(client, event)
                await asyncio.sleep(0.005)
        log.close()

    async def bench_load(self, client):
        household = [f"sensor.room_{i}_temperature" for i in range(50)]
        printers = ["x1c_00m09a350100123", "p1s_01p09c470200456"]
        start = time.monotonic()
        tick = 0
        while time.monotonic() - start < self.args.bench_load:
            second = time.monotonic()
            for i in range(2000):
                event = self.bench_event(household[i % 50], str(20 + (i % 7)), {"unit_of_measurement": "°C",
                                         "device_class": "temperature", "friendly_name": "Room temperature"})
                await self.deliver(client, event)
                if i % 100 == 99:
                    await asyncio.sleep(max(0, second + (i + 1) / 2000 - time.monotonic()))
            tick += 1
            for prefix in printers:
                for suffix, value in (("_print_progress", tick % 100), ("_current_layer", tick % 300),
                                      ("_nozzle_temperature", 215 + tick % 10)):
                    await self.deliver(client, self.bench_event(f"sensor.{prefix}{suffix}", str(value), {}))
            await asyncio.sleep(max(0, second + 1 - time.monotonic()))

    async def stream(self, client):
        ws, number = client.ws, client.number
        if self.args.huge_event:
            entity = next(e for e in self.states if e.endswith("_print_status"))
            current = self.states[entity]
            blob = {f"k{i}": i for i in range(int(self.args.huge_event * 60000))}
            event = self.bench_event(entity, current["state"], dict(current.get("attributes", {}), blob=blob))
            text = client.render(event)
            await ws.send(text)
            self.stats["huge_event_bytes"] = len(text)
            self.stats["events_sent"] += 1
            self.sent_events(number, 1)
            self.write_stats()
        if self.args.start_delay:
            await asyncio.sleep(self.args.start_delay)
        while self.args.start_file and not os.path.exists(self.args.start_file):
            await asyncio.sleep(0.05)
        if self.args.bench_latency:
            return await self.bench_latency(client)
        if self.args.bench_load:
            return await self.bench_load(client)
        sent_here = 0
        while self.position < len(self.events):
            await self.registry_step(client)
            batch = 3 if self.args.coalesce and self.coalesce else 1
            messages, texts = [], []
            while self.position < len(self.events) and len(texts) < batch:
                event = self.events[self.position]
                self.position += 1
                self.apply(event)
                text = client.render(event)
                if text is None:
                    self.withheld(client)
                    continue
                messages.append({"event": event})
                texts.append(text)
            if not texts:
                continue
            await self.send(ws, texts[0] if len(texts) == 1 and batch == 1 else "[" + ",".join(texts) + "]")
            sent_here += len(texts)
            self.stats["events_sent"] += len(texts)
            self.sent_events(number, len(texts))
            await self.hold_after(messages)
            if self.args.drop_after and sent_here >= self.args.drop_after and self.stats["drops"] == 0:
                self.stats["drops"] += 1
                if self.args.skip_while_down:
                    while self.position < len(self.events):
                        self.apply(self.events[self.position])
                        self.position += 1
                self.write_stats()
                await ws.close()
                return
            await asyncio.sleep(self.args.interval)
        self.stats["recording_done"] = 1
        if self.args.drop_at_end and self.stats["drops"] == 0:
            self.stats["drops"] += 1
            self.write_stats()
            await ws.close()
            return
        self.write_stats()

    async def hold_after(self, messages):
        """--hold-after: waits for the hold's file once an event sent sets its entity to its state."""
        for hold in list(self.args.hold_after):
            condition, file = hold.rsplit(":", 1)
            entity, state = condition.split("=", 1)
            if any(m["event"].get("event_type") == "state_changed" and m["event"]["data"].get("entity_id") == entity
                   and (m["event"]["data"].get("new_state") or {}).get("state") == state for m in messages):
                self.args.hold_after.remove(hold)
                self.stats["held_at"] = condition
                self.write_stats()
                while not os.path.exists(file):
                    await asyncio.sleep(0.05)

    def tls_context(self):
        import datetime
        import ipaddress
        import ssl
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "PrintBridge test HA")])
        now = datetime.datetime.now(datetime.timezone.utc)
        cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=1))
                .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                            x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
                .sign(key, hashes.SHA256()))
        ca = os.path.join(self.args.tls, "ha-ca.pem")
        keyfile = os.path.join(self.args.tls, "ha-key.pem")
        with open(ca, "wb") as f:
            f.write(cert.public_bytes(serialization.Encoding.PEM))
        with open(keyfile, "wb") as f:
            f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(ca, keyfile)
        return context

    def process_request(self, connection, request):
        """Refuses handshakes while HA is held down (--hold-reconnects), and
        answers plain HTTP requests when this mock is also the Supervisor."""
        from websockets.datastructures import Headers
        from websockets.http11 import Response

        def reply(status, reason, body):
            data = json.dumps(body).encode()
            return Response(status, reason, Headers([("Content-Type", "application/json"),
                                                     ("Content-Length", str(len(data)))]), data)
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        if upgrade and self.args.hold_reconnects and self.stats["drops"] > 0 \
                and not os.path.exists(self.args.hold_reconnects):
            self.stats["held_handshakes"] = self.stats.get("held_handshakes", 0) + 1
            self.write_stats()
            return reply(503, "Service Unavailable", {"message": "Home Assistant is starting"})
        if self.cameras and not upgrade \
                and request.path.startswith(("/api/camera_proxy/", "/api/image_proxy/")):
            return self.camera(connection, request)
        if not self.args.supervisor_options or upgrade:
            return None
        self.stats["supervisor_requests"] = self.stats.get("supervisor_requests", 0) + 1
        self.write_stats()
        if request.headers.get("Authorization") != f"Bearer {self.args.token}":
            return reply(401, "Unauthorized", {"result": "error", "message": "Unauthorized"})
        answers = {"/addons/self/options/config": self.args.supervisor_options,
                   "/network/info": self.args.supervisor_network,
                   "/addons/self/info": self.args.supervisor_addon_info}
        path = answers.get(request.path)
        if path is None:
            return reply(404, "Not Found", {"result": "error", "message": "Not found"})
        if path == "forbidden":
            # aiohttp's HTTPForbidden, raised by the Supervisor's security middleware.
            body = b"403: Forbidden"
            return Response(403, "Forbidden", Headers([("Content-Type", "text/plain; charset=utf-8"),
                                                       ("Content-Length", str(len(body)))]), body)
        with open(path) as f:
            return reply(200, "OK", {"result": "ok", "data": json.load(f)})

    @staticmethod
    def http_head(status, headers):
        """A response's status line and headers, for a body written to the transport."""
        lines = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}", f"Date: {email.utils.formatdate(usegmt=True)}",
                 "Connection: close"] + [f"{k}: {v}" for k, v in headers]
        return ("\r\n".join(lines) + "\r\n\r\n").encode()

    async def camera(self, connection, request):
        """HA's camera and image proxies (the --camera entities), as process_request's answer.

        A body too big or too long for one Response (huge, endless) is written to
        the transport here; the handshake then finds the connection closed and
        sends nothing more."""
        from websockets.datastructures import Headers
        from websockets.http11 import Response

        def reply(status, body, content_type="text/plain; charset=utf-8"):
            try:
                reason = http.HTTPStatus(status).phrase
            except ValueError:
                reason = "Unknown"
            if body is None:
                # aiohttp's HTTPException text, as HA's views raise them.
                body = f"{status}: {reason}".encode()
            return Response(status, reason, Headers([("Date", email.utils.formatdate(usegmt=True)),
                                                     ("Connection", "close"), ("Content-Type", content_type),
                                                     ("Content-Length", str(len(body)))]), body)

        path, _, query = request.path.partition("?")
        proxy, _, entity = path[len("/api/"):].partition("/")
        entity = urllib.parse.unquote(entity)
        authorization = request.headers.get("Authorization")
        authorized = (not self.args.reject_token and authorization == f"Bearer {self.args.token}") \
            or urllib.parse.parse_qs(query).get("token", [None])[0] == "x"
        self.stats["camera_requests"].append({"path": request.path, "authorized": authorized})
        self.write_stats()
        mode = self.cameras.get(entity)
        if mode is None or not entity.startswith(proxy.split("_")[0] + "."):
            return reply(404, None)
        if not authorized:
            return reply(401 if authorization is not None else 403, None)
        kind, _, value = mode.partition(":")
        transport = connection.transport
        if kind == "png":
            return reply(200, TINY_PNG, "image/png")
        if kind == "slow":
            # HA gives up on the camera after 10 s and answers 500.
            await asyncio.sleep(min(float(value), 10))
            return reply(500, None) if float(value) >= 10 else reply(200, TINY_JPEG, "image/jpeg")
        if kind == "status":
            return reply(int(value), None)
        if kind == "html":
            return reply(200, b"<html><head><title>Log in</title></head><body><form>Password "
                              b"<input type=password></form></body></html>", "text/html; charset=utf-8")
        if kind == "fake":
            return reply(200, b"not a picture", "image/jpeg")
        if kind == "huge":
            size = int(float(value) * 1_000_000)
            transport.write(self.http_head(200, [("Content-Type", "image/jpeg"), ("Content-Length", size)]))
            piece = bytes(65536)
            sent = 0
            try:
                while sent < size and not transport.is_closing():
                    part = (b"\xff\xd8\xff\xe0" + piece[4:] if sent == 0 else piece)[:size - sent]
                    transport.write(part)
                    sent += len(part)
                    await connection.drain()
            except OSError:
                pass  # the client went away (drain raises the connection's error)
            transport.close()  # after what is buffered has gone
        elif kind == "endless":
            transport.write(self.http_head(200, [("Content-Type", "image/jpeg"), ("Transfer-Encoding", "chunked")]))
            piece = bytes(65536)
            part = TINY_JPEG[:20]
            try:
                while not transport.is_closing():
                    transport.write(b"%X\r\n" % len(part) + part + b"\r\n")
                    await connection.drain()
                    await asyncio.sleep(0)  # as fast as the client reads (drain): a busy machine
                    part = piece            # still reaches the size limit well before the deadline
            except OSError:
                pass  # the client went away (drain raises the connection's error)
            self.stats["endless_streams_ended"] += 1
            self.write_stats()
            transport.abort()
        else:
            return reply(200, TINY_JPEG, "image/jpeg")
        await asyncio.shield(connection.connection_lost_waiter)
        # Not sent: the connection is closed (the handshake checks).
        return reply(200, b"", "image/jpeg")

    async def main(self):
        ssl_context = self.tls_context() if self.args.tls else None
        # The camera proxies' slow, huge and endless answers run inside the opening
        # handshake, which websockets otherwise cuts off after open_timeout (10 s).
        timeouts = {"open_timeout": None} if self.cameras else {}
        async with websockets.serve(self.handler, "127.0.0.1", 0, max_size=None, ssl=ssl_context,
                                    process_request=self.process_request, **timeouts) as server:
            port = server.sockets[0].getsockname()[1]
            print(f"PORT {port}", flush=True)
            # Stop when the test process goes away (stdin closes).
            threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
            await asyncio.Future()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", required=True)
    parser.add_argument("--token", default="test-ha-token")
    parser.add_argument("--reject-token", action="store_true")
    parser.add_argument("--drop-after", type=int, default=0)
    parser.add_argument("--skip-while-down", action="store_true")
    parser.add_argument("--interval", type=float, default=0.002)
    parser.add_argument("--refuse-services", metavar="MESSAGE",
                        help="answer every call_service with HA's home_assistant_error and this message")
    parser.add_argument("--stats")
    parser.add_argument("--big-snapshot", type=float, default=0)
    parser.add_argument("--fragment", action="store_true")
    parser.add_argument("--coalesce", action="store_true")
    parser.add_argument("--stall-pongs", action="store_true")
    parser.add_argument("--batch-replies", action="store_true")
    parser.add_argument("--timeline", type=float, default=0)
    parser.add_argument("--rename", action="append", default=[])
    parser.add_argument("--registry")
    parser.add_argument("--tls")
    parser.add_argument("--huge-event", type=float, default=0)
    parser.add_argument("--start-delay", type=float, default=0, help="wait before streaming events")
    parser.add_argument("--supervisor-options")
    parser.add_argument("--supervisor-network")
    parser.add_argument("--supervisor-addon-info")
    parser.add_argument("--start-file", help="stream the events only once this file exists (the test says go)")
    parser.add_argument("--drop-at-end", action="store_true")
    parser.add_argument("--hold-after", action="append", default=[])
    parser.add_argument("--hold-reconnects")
    parser.add_argument("--camera", action="append", default=[], metavar="ENTITY=MODE",
                        help="serve ENTITY under HA's camera/image proxy (see the docstring); repeatable")
    parser.add_argument("--bench-latency", type=int, default=0)
    parser.add_argument("--bench-log")
    parser.add_argument("--bench-load", type=float, default=0)
    parser.add_argument("--unknown-command", action="append", default=[], metavar="TYPE")
    parser.add_argument("--added-later", action="store_true")
    parser.add_argument("--rename-later", action="append", default=[], metavar="OLD=NEW:N")
    parser.add_argument("--remove-later", action="append", default=[], metavar="TEXT:N")
    parser.add_argument("--household", type=float, default=0)
    parser.add_argument("--without", action="append", default=[], metavar="TEXT")
    asyncio.run(MockHA(parser.parse_args()).main())


if __name__ == "__main__":
    main()
