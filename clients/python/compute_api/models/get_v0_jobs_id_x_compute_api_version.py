from enum import StrEnum


class GetV0JobsIdXComputeAPIVersion(StrEnum):
    V0 = "v0"

    def __str__(self) -> str:
        return str(self.value)
