from enum import StrEnum


class PatchV0WorkspacesIdXComputeAPIVersion(StrEnum):
    V0 = "v0"

    def __str__(self) -> str:
        return str(self.value)
