from enum import StrEnum


class NodeAState(StrEnum):
    DRAINED = "DRAINED"
    DRAINING = "DRAINING"
    OFFLINE = "OFFLINE"
    ONLINE = "ONLINE"

    def __str__(self) -> str:
        return str(self.value)
