from enum import StrEnum


class JobPool(StrEnum):
    MANAGED = "managed"
    SELF = "self"

    def __str__(self) -> str:
        return str(self.value)
