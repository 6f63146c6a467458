"""HA's compressed state format for subscribe_entities, as HA 2024.3 writes it.

Ported from homeassistant/core.py (State.as_compressed_state) and
homeassistant/components/websocket_api/messages.py (_state_diff_event,
_state_diff, cached_state_diff_message) and commands.py
(_send_handle_entities_init_response), over the state dicts the recordings
hold (get_states / state_changed shapes: ISO times, context objects).
"""
import json
from datetime import datetime


def dumps(value):
    """HA's JSON (orjson): compact, UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def timestamp(iso):
    return datetime.fromisoformat(iso).timestamp()


def _context(state):
    context = state.get("context") or {}
    if context.get("parent_id") is None and context.get("user_id") is None:
        return context.get("id")
    return {"id": context.get("id"), "parent_id": context.get("parent_id"), "user_id": context.get("user_id")}


def compressed(state):
    """State.as_compressed_state: lu only when it differs from lc; c the context id alone when it can be."""
    last_changed = state.get("last_changed") or state.get("last_updated")
    last_updated = state.get("last_updated") or last_changed
    result = {"s": state["state"], "a": state.get("attributes", {}), "c": _context(state),
              "lc": timestamp(last_changed)}
    if last_updated != last_changed:
        result["lu"] = timestamp(last_updated)
    return result


def state_diff(old, new):
    """_state_diff: {"c": {entity_id: {"+": …, "-"?: {"a": [removed]}}}}."""
    additions = {}
    diff = {"+": additions}
    if old["state"] != new["state"]:
        additions["s"] = new["state"]
    if old.get("last_changed") != new.get("last_changed"):
        additions["lc"] = timestamp(new["last_changed"])
    elif old.get("last_updated") != new.get("last_updated"):
        additions["lu"] = timestamp(new["last_updated"])
    old_context, new_context = old.get("context") or {}, new.get("context") or {}
    if old_context.get("parent_id") != new_context.get("parent_id"):
        additions["c"] = {"parent_id": new_context.get("parent_id")}
    if old_context.get("user_id") != new_context.get("user_id"):
        if "c" in additions:
            additions["c"]["user_id"] = new_context.get("user_id")
        else:
            additions["c"] = {"user_id": new_context.get("user_id")}
    if old_context.get("id") != new_context.get("id"):
        if "c" in additions:
            additions["c"]["id"] = new_context.get("id")
        else:
            additions["c"] = new_context.get("id")
    old_attributes, new_attributes = old.get("attributes", {}), new.get("attributes", {})
    if old_attributes != new_attributes:
        for key, value in new_attributes.items():
            if old_attributes.get(key) != value:
                additions.setdefault("a", {})[key] = value
        removed = [key for key in old_attributes if key not in new_attributes]
        if removed:
            diff["-"] = {"a": removed}
    return {"c": {new["entity_id"]: diff}}


def state_diff_event(entity_id, old, new):
    """_state_diff_event: removed, added or changed."""
    if new is None:
        return {"r": [entity_id]}
    if old is None:
        return {"a": {entity_id: compressed(new)}}
    return state_diff(old, new)


def diff_message(subscription, entity_id, old, new):
    """cached_state_diff_message: the event serialised without its id, then ',"id":N}'."""
    return dumps({"type": "event", "event": state_diff_event(entity_id, old, new)})[:-1] + f',"id":{subscription}}}'


def initial_message(subscription, states):
    """_send_handle_entities_init_response: every state asked for, in one event."""
    members = ",".join(dumps({s["entity_id"]: compressed(s)})[1:-1] for s in states)
    return '{"id":' + str(subscription) + ',"type":"event","event":{"a":{' + members + "}}}"
