"""Per-alert latency from a loopback capture: kernel timestamps of the HA
frame reaching PrintBridge and of PrintBridge's next request to APNs.

read_latencies(pcap, ha_port, apns_port, marker) -> list of milliseconds.
An HA->agent TCP segment whose payload holds a pause (an unmasked server
WebSocket frame, readable: a state_changed event or a subscribe_entities
change) is matched with the first agent->APNs segment carrying data that
follows it."""
import re
import struct


def packets(path):
    with open(path, "rb") as f:
        header = f.read(24)
        magic = struct.unpack("<I", header[:4])[0]
        endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
        nanos = magic in (0xA1B23C4D, 0x4D3CB2A1)
        linktype = struct.unpack(endian + "I", header[20:24])[0]
        while True:
            record = f.read(16)
            if len(record) < 16:
                return
            seconds, fraction, captured, _ = struct.unpack(endian + "IIII", record)
            data = f.read(captured)
            stamp = seconds + fraction / (1e9 if nanos else 1e6)
            offset = 14 if linktype == 1 else 16 if linktype == 113 else 0
            ip = data[offset:]
            if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            tcp = ip[(ip[0] & 15) * 4:]
            source, destination = struct.unpack(">HH", tcp[:4])
            payload = tcp[(tcp[12] >> 4) * 4:]
            yield stamp, source, destination, payload


def read_latencies(path, ha_port, apns_port):
    """For each HA frame whose new state is a pause, the time until the first
    later segment carrying data from the agent to APNs (events are spaced
    wider than the agent's processing, so the match is unambiguous)."""
    pauses = []
    requests = []
    # A state_changed event (get_states and state_changed, HA before
    # subscribe_entities or a recording) or a subscribe_entities change
    # (HA's compressed state: {"c":{entity:{"+":{"s":"pause",...}}}}).
    pattern = re.compile(rb'"new_state":\{"entity_id":"[^"]*","state":"pause"|"\+":\{"s":"pause"')
    for stamp, source, destination, payload in packets(path):
        if not payload:
            continue
        if source == ha_port:
            pauses.extend(stamp for _ in pattern.finditer(payload))
        elif destination == apns_port:
            requests.append(stamp)
    latencies = []
    index = 0
    for pause in pauses:
        while index < len(requests) and requests[index] <= pause:
            index += 1
        if index < len(requests):
            latencies.append((requests[index] - pause) * 1000)
    return sorted(latencies)
