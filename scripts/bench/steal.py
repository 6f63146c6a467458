"""Hypervisor steal: the share of the machine's CPU time the hypervisor gave to
someone else. On a shared VM it moves every timing figure, so the benchmarks
print it next to each phase they measure."""


class StealMeter:
    """Started at creation; `percent()` is the steal since then."""

    def __init__(self):
        self.start = self.ticks()

    @staticmethod
    def ticks():
        """(steal, total) CPU ticks of the whole machine, from /proc/stat."""
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return (fields[7] if len(fields) > 7 else 0), sum(fields)

    def percent(self):
        steal, total = self.ticks()
        return 100 * (steal - self.start[0]) / max(1, total - self.start[1])
