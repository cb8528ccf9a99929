from enum import StrEnum


class PostV0WebhooksXComputeAPIVersion(StrEnum):
    V0 = "v0"

    def __str__(self) -> str:
        return str(self.value)
