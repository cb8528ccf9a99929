from enum import StrEnum


class JobAPool(StrEnum):
    MANAGED = "managed"
    SELF = "self"

    def __str__(self) -> str:
        return str(self.value)
