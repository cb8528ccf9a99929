from enum import StrEnum


class PostApiComputeApiKeysRevokeResponse200PayloadKind(StrEnum):
    AGENT = "agent"
    NODE = "node"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
