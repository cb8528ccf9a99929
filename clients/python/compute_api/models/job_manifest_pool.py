from enum import StrEnum


class JobManifestPool(StrEnum):
    MANAGED = "managed"
    SELF = "self"

    def __str__(self) -> str:
        return str(self.value)
