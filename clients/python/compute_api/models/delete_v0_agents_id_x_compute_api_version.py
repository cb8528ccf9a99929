from enum import StrEnum


class DeleteV0AgentsIdXComputeAPIVersion(StrEnum):
    V0 = "v0"

    def __str__(self) -> str:
        return str(self.value)
